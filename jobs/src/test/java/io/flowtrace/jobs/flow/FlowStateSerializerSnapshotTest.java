package io.flowtrace.jobs.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.tcp.AnalyzerConfig;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The serializer snapshot keeps the segment bound (version 2) and still reads version 1, written without it. */
class FlowStateSerializerSnapshotTest {

    @Test
    void aVersion2SnapshotRestoresTheSegmentBound() throws Exception {
        AnalyzerConfig job = AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(8192);
        DataOutputSerializer out = new DataOutputSerializer(64);
        new FlowStateSerializerSnapshot(job).writeSnapshot(out);
        assertThat(out.length()).as("five longs and an int").isEqualTo(5 * 8 + 4);
        FlowStateSerializerSnapshot read = new FlowStateSerializerSnapshot();
        read.readSnapshot(
                2, new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(new FlowStateSerializer(job));
    }

    @Test
    void aVersion1SnapshotReadsWithTheMostSegments() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        // version 1: the five longs of the tunables, as written before the bound existed
        for (long v : new long[] {180_000_000L, 3_000_000L, 250_000L, 300_000_000_000L, 30_000_000_000L}) {
            out.writeLong(v);
        }
        FlowStateSerializerSnapshot read = new FlowStateSerializerSnapshot();
        read.readSnapshot(
                1, new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(new FlowStateSerializer(AnalyzerConfig.DEFAULTS));
        assertThat(AnalyzerConfig.DEFAULTS.maxSegmentsPerDirection()).isEqualTo(32_768);
    }
}
