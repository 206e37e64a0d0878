package io.flowtrace.jobs.flow;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Flink serializer of {@link FlowBatch}, the packet path's record between the source and the flow
 * function: the header fields, then the Kafka value as length-prefixed bytes. A flow batch is
 * never kept in state, so the layout only has to agree between the tasks of one job; the snapshot
 * still versions it.
 */
public final class FlowBatchSerializer extends TypeSerializerSingleton<FlowBatch> {
    private static final long serialVersionUID = 1L;

    public static final FlowBatchSerializer INSTANCE = new FlowBatchSerializer();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public FlowBatch createInstance() {
        return new FlowBatch();
    }

    @Override
    public FlowBatch copy(FlowBatch from) {
        // The byte arrays are never written to after the source made them: sharing them is safe.
        return new FlowBatch(
                from.key,
                from.timeMs,
                from.packets,
                from.topic,
                from.partition,
                from.offset,
                from.kafkaTimestampMs,
                from.recordKey,
                from.value);
    }

    @Override
    public FlowBatch copy(FlowBatch from, FlowBatch reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(FlowBatch b, DataOutputView out) throws IOException {
        StringValue.writeString(b.key, out);
        out.writeLong(b.timeMs);
        out.writeInt(b.packets);
        StringValue.writeString(b.topic, out);
        out.writeInt(b.partition);
        out.writeLong(b.offset);
        out.writeLong(b.kafkaTimestampMs);
        writeBytes(b.recordKey, out);
        writeBytes(b.value, out);
    }

    @Override
    public FlowBatch deserialize(DataInputView in) throws IOException {
        FlowBatch b = new FlowBatch();
        b.key = StringValue.readString(in);
        b.timeMs = in.readLong();
        b.packets = in.readInt();
        b.topic = StringValue.readString(in);
        b.partition = in.readInt();
        b.offset = in.readLong();
        b.kafkaTimestampMs = in.readLong();
        b.recordKey = readBytes(in);
        b.value = readBytes(in);
        return b;
    }

    @Override
    public FlowBatch deserialize(FlowBatch reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public TypeSerializerSnapshot<FlowBatch> snapshotConfiguration() {
        return new FlowBatchSerializerSnapshot();
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        return bytes;
    }

    /** Snapshot of the stateless serializer. */
    public static final class FlowBatchSerializerSnapshot extends SimpleTypeSerializerSnapshot<FlowBatch> {
        public FlowBatchSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}
