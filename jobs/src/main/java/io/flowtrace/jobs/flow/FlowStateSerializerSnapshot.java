package io.flowtrace.jobs.flow;

import io.flowtrace.core.tcp.AnalyzerConfig;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a checkpoint or savepoint records about {@link FlowStateSerializer}: the analyser tunables
 * (version 2 adds the segment bound; a version 1 snapshot reads with the most segments).
 * The byte layout itself is versioned inside every value (operator layout byte, then
 * FlowStateCodec's version byte), so any serializer of this class reads any older state: the
 * compatibility is always "as is".
 */
public final class FlowStateSerializerSnapshot implements TypeSerializerSnapshot<FlowState> {
    private static final int VERSION = 2;

    private AnalyzerConfig config;

    /** For Flink, which instantiates snapshots reflectively before {@link #readSnapshot}. */
    public FlowStateSerializerSnapshot() {}

    FlowStateSerializerSnapshot(AnalyzerConfig config) {
        this.config = config;
    }

    @Override
    public int getCurrentVersion() {
        return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        out.writeLong(config.minRtoNanos());
        out.writeLong(config.defaultReorderWindowNanos());
        out.writeLong(config.minReorderWindowNanos());
        out.writeLong(config.idleTimeoutNanos());
        out.writeLong(config.halfOpenTimeoutNanos());
        out.writeInt(config.maxSegmentsPerDirection());
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        if (readVersion != 1 && readVersion != VERSION) {
            throw new IOException("unknown FlowStateSerializer snapshot version " + readVersion);
        }
        config = new AnalyzerConfig(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong());
        if (readVersion >= 2) {
            config = config.withMaxSegmentsPerDirection(in.readInt());
        }
    }

    @Override
    public TypeSerializer<FlowState> restoreSerializer() {
        return new FlowStateSerializer(config);
    }

    @Override
    public TypeSerializerSchemaCompatibility<FlowState> resolveSchemaCompatibility(
            TypeSerializerSnapshot<FlowState> oldSerializerSnapshot) {
        if (!(oldSerializerSnapshot instanceof FlowStateSerializerSnapshot)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
}
