package io.flowtrace.jobs.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.junit.jupiter.api.Test;

/**
 * Window state written before the reservoir moved to core (the accumulator's serializer snapshot
 * and one accumulator, as a checkpoint holds them: state/flow-window-stats-v1.bin, written by the
 * job's PojoSerializer at that commit) must restore with today's classes, values intact.
 */
class FlowWindowStateCompatibilityTest {

    @Test
    void restoresWindowStateWrittenBeforeTheReservoirMovedToCore() throws IOException {
        TypeSerializer<FlowWindowStats> current =
                TypeInformation.of(FlowWindowStats.class).createSerializer(new SerializerConfigImpl());
        try (InputStream in = getClass().getResourceAsStream("/state/flow-window-stats-v1.bin")) {
            DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(in);
            TypeSerializerSnapshot<FlowWindowStats> written = TypeSerializerSnapshot.readVersionedSnapshot(
                    view, getClass().getClassLoader());

            TypeSerializerSchemaCompatibility<FlowWindowStats> compatibility =
                    current.snapshotConfiguration().resolveSchemaCompatibility(written);
            assertThat(compatibility.isCompatibleAsIs())
                    .as(compatibility.toString())
                    .isTrue();

            FlowWindowStats w = current.deserialize(view);
            // the values the fixture was written with
            assertThat(w.agentId).isEqualTo("lab");
            assertThat(w.service).isEqualTo("10.0.0.2:5201");
            assertThat(w.flows).isEqualTo(3);
            assertThat(w.dataBytes).isEqualTo(144800);
            assertThat(w.rto).isEqualTo(1);
            assertThat(w.prematureExits).isEqualTo(1);
            // setup times 210.5, 180.25, 400, 95, 1000 into a reservoir of capacity 4
            assertThat(w.setupUs.count).isEqualTo(5);
            assertThat(w.setupUs.capacity).isEqualTo(4);
            assertThat(w.setupUs.sum).isEqualTo(210.5 + 180.25 + 400.0 + 95.0 + 1000.0);
            assertThat(w.setupUs.min).isEqualTo(95.0);
            assertThat(w.setupUs.max).isEqualTo(1000.0);
            assertThat(w.rttUs.count).isEqualTo(2);
            assertThat(w.rttUs.sample).startsWith(120.125, 98.5);
            assertThat(w.exitCwndSegments.mean()).isEqualTo(10.0);
        }
    }
}
