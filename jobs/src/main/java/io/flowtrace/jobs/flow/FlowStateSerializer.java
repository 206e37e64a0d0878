package io.flowtrace.jobs.flow;

import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.FlowStateCodec;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of {@link FlowState}: core's versioned {@link FlowStateCodec} for the analyser
 * (compact varints, no Kryo, no reflection) behind a small header of the operator's own fields.
 * The same bytes serve the heap backend's checkpoints and every RocksDB access.
 *
 * <p>The analyser tunables ({@link AnalyzerConfig}) are not part of the per-flow bytes; the
 * serializer carries them and its snapshot records them, so a restored flow is read back with the
 * thresholds it was analysed with.
 */
public final class FlowStateSerializer extends TypeSerializer<FlowState> {
    private static final long serialVersionUID = 1L;
    /**
     * Layout of the operator fields; FlowStateCodec versions the analyser separately. Layout 2 adds
     * the vantage point after layout 1's fields; layout 1 still reads (vantage null). Layout 3 adds
     * the expiry clock after the vantage; layouts 1 and 2 read it as the last seen time (what
     * their expiry was measured from).
     */
    static final int LAYOUT_VERSION = 3;

    private final AnalyzerSettings settings;
    private transient AnalyzerConfig config;

    public FlowStateSerializer(AnalyzerConfig config) {
        this.settings = AnalyzerSettings.of(Objects.requireNonNull(config, "config"));
        this.config = config;
    }

    AnalyzerConfig config() {
        if (config == null) {
            config = settings.toConfig(); // after Java deserialization on a task manager
        }
        return config;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<FlowState> duplicate() {
        return this; // stateless: no reusable buffers
    }

    @Override
    public FlowState createInstance() {
        return new FlowState();
    }

    /** A deep copy through the codec: the heap backend copies state for its asynchronous snapshots. */
    @Override
    public FlowState copy(FlowState from) {
        FlowState to = new FlowState();
        copyFields(from, to);
        try {
            to.flow = FlowStateCodec.fromBytes(FlowStateCodec.toBytes(from.flow), config());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "flow state did not survive its own codec (instance " + from.instance + ")", e);
        }
        return to;
    }

    @Override
    public FlowState copy(FlowState from, FlowState reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(FlowState s, DataOutputView out) throws IOException {
        out.writeByte(LAYOUT_VERSION);
        out.writeLong(s.instance);
        out.writeLong(s.lastSeenNanos);
        out.writeLong(s.timerMs);
        out.writeLong(s.nextUpdateMs);
        out.writeLong(s.latePackets);
        out.writeLong(s.events);
        out.writeBoolean(s.closeReported);
        // null while a layout-1 state restored from an older job has not been touched since
        out.writeBoolean(s.vantage != null);
        if (s.vantage != null) {
            out.writeUTF(s.vantage.agentId()); // at most 255 characters each (PacketEvents.MAX_VANTAGE_CHARS)
            out.writeUTF(s.vantage.interfaceName());
        }
        out.writeLong(s.clockNanos);
        FlowStateCodec.write(s.flow, out);
    }

    @Override
    public FlowState deserialize(DataInputView in) throws IOException {
        int layout = in.readByte();
        if (layout < 1 || layout > LAYOUT_VERSION) {
            throw new IOException(
                    "unknown flow state layout " + layout + " (this build reads 1 to " + LAYOUT_VERSION + ")");
        }
        FlowState s = new FlowState();
        s.instance = in.readLong();
        s.lastSeenNanos = in.readLong();
        s.timerMs = in.readLong();
        s.nextUpdateMs = in.readLong();
        s.latePackets = in.readLong();
        s.events = in.readLong();
        s.closeReported = in.readBoolean();
        if (layout >= 2 && in.readBoolean()) {
            s.vantage = new VantagePoint(in.readUTF(), in.readUTF());
        }
        s.clockNanos = layout >= 3 ? in.readLong() : s.lastSeenNanos;
        s.flow = FlowStateCodec.read(in, config());
        return s;
    }

    @Override
    public FlowState deserialize(FlowState reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FlowStateSerializer other && other.settings.equals(settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<FlowState> snapshotConfiguration() {
        return new FlowStateSerializerSnapshot(config());
    }

    private static void copyFields(FlowState from, FlowState to) {
        to.vantage = from.vantage;
        to.instance = from.instance;
        to.lastSeenNanos = from.lastSeenNanos;
        to.clockNanos = from.clockNanos;
        to.timerMs = from.timerMs;
        to.nextUpdateMs = from.nextUpdateMs;
        to.latePackets = from.latePackets;
        to.events = from.events;
        to.closeReported = from.closeReported;
    }
}
