package io.flowtrace.jobs.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.mapping.ConntrackEvents;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.input.ConntrackRecordDeserializer;
import io.flowtrace.jobs.input.PacketRecordDeserializer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Every kind of {@link HostilePackets} through the job's own deserializer, without Kafka: each one is a
 * dead letter of the expected stage whose reason matches the pattern written for the kind. The same
 * records go through real Kafka and the whole job in {@link HostileInputITCase}.
 */
class HostilePacketsTest {
    @Test
    void theBaseOfTheValidationKindsIsItselfValid() {
        Random r = new Random(1);
        for (int i = 0; i < 100; i++) {
            assertThat(PacketEvents.invalidReason(HostilePackets.valid(r).build()))
                    .isNull();
        }
    }

    @Test
    void everyKindIsDeadLetteredAtItsStageWithAMatchingReason() {
        // without Avro's limits (jobs/pom.xml) the length-lie kinds are an OutOfMemoryError, not a dead letter
        assertThat(System.getProperty("org.apache.avro.limits.bytes.maxLength")).isEqualTo("8388608");
        assertThat(System.getProperty("org.apache.avro.limits.collectionItems.maxLength"))
                .isEqualTo("1048576");
        PacketRecordDeserializer deserializer = new PacketRecordDeserializer();
        Map<String, Integer> perKind = new LinkedHashMap<>();
        Map<String, Long> nanos = new LinkedHashMap<>();
        int offset = 0;
        for (HostilePackets.Bad bad : HostilePackets.generate(4_000, 10L)) {
            List<Either<DeadLetter, FlowBatch>> out = new ArrayList<>();
            long t0 = System.nanoTime();
            deserializer.deserialize(new ConsumerRecord<>("t", 0, offset++, new byte[0], bad.value()), collector(out));
            assertThat(out).as(bad.kind().name()).hasSize(1);
            assertThat(out.get(0).isLeft())
                    .as("%s is a dead letter", bad.kind().name())
                    .isTrue();
            DeadLetter d = out.get(0).left();
            assertThat(d.getStage().name())
                    .as(bad.kind().name())
                    .isEqualTo(bad.kind().stage());
            assertThat(d.getReason()).as(bad.kind().name()).matches(bad.kind().reason());
            perKind.merge(bad.kind().name(), 1, Integer::sum);
            nanos.merge(bad.kind().name(), System.nanoTime() - t0, Long::sum);
        }
        assertThat(perKind).hasSize(HostilePackets.kinds().size());
        nanos.forEach((k, v) -> System.out.printf("%-50s %8.2f ms per record%n", k, v / 1e6 / perKind.get(k)));
    }

    @Test
    void everyConntrackKindIsDeadLetteredAtItsStageWithAMatchingReason() {
        Random r = new Random(2);
        for (int i = 0; i < 100; i++) {
            assertThat(ConntrackEvents.invalidReason(HostileConntrack.valid(r).build()))
                    .isNull();
        }
        ConntrackRecordDeserializer deserializer = new ConntrackRecordDeserializer("stock");
        int offset = 0;
        for (HostilePackets.Kind kind : HostileConntrack.kinds()) {
            for (int i = 0; i < 20; i++) {
                List<Either<DeadLetter, ConntrackSample>> out = new ArrayList<>();
                deserializer.deserialize(
                        new ConsumerRecord<>(
                                "ct", 0, offset++, new byte[0], kind.make().apply(r)),
                        collector(out));
                assertThat(out).as(kind.name()).hasSize(1);
                assertThat(out.get(0).isLeft())
                        .as("%s is a dead letter", kind.name())
                        .isTrue();
                assertThat(out.get(0).left().getStage().name()).as(kind.name()).isEqualTo(kind.stage());
                assertThat(out.get(0).left().getReason()).as(kind.name()).matches(kind.reason());
            }
        }
    }

    private static <T> Collector<T> collector(List<T> out) {
        return new Collector<>() {
            @Override
            public void collect(T record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
    }
}
