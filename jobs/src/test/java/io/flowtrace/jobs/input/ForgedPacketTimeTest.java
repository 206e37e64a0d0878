package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowBatches;
import io.flowtrace.jobs.flow.FlowBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.clock.RelativeClock;
import org.apache.flink.util.clock.SystemClock;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A record that claims a capture time hours ahead cannot move the packets input's event time: Kafka
 * records go through the job's deserializer and watermark strategy ({@link InputWatermarks#packets}
 * as the job builds it) and the watermarks the partition would emit are collected. Before, one such
 * record moved the partition's watermark 23 h ahead, so every live flow's timers fired.
 */
class ForgedPacketTimeTest {
    private static final Vantage VANTAGE = new Vantage("honest", "eth0");
    private static final List<PacketEvent> FLOW = CaptureFixtures.packets("decoding/tcp4-sack.pcap", VANTAGE);
    /** tshark -r testdata/decoding/tcp4-sack.pcap -c 1 -T fields -e frame.time_epoch: 1796003161.561966 */
    private static final long FIRST_PACKET_MS = 1_796_003_161_561L;

    private static final long HOUR_MS = 3_600_000L;

    private final PacketRecordDeserializer deserializer = new PacketRecordDeserializer();
    private final List<Long> watermarks = new ArrayList<>();
    private final WatermarkOutput output = new WatermarkOutput() {
        @Override
        public void emitWatermark(Watermark w) {
            watermarks.add(w.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    };
    private TimestampAssigner<Either<DeadLetter, FlowBatch>> timestamps;
    private WatermarkGenerator<Either<DeadLetter, FlowBatch>> generator;

    @BeforeEach
    void jobStrategy() {
        // the job's defaults: 2 s out-of-orderness, 5 min future skew (idleness off: one partition here)
        WatermarkStrategy<Either<DeadLetter, FlowBatch>> s =
                InputWatermarks.packets(Duration.ofSeconds(2), Duration.ZERO, Duration.ofMinutes(5));
        timestamps = s.createTimestampAssigner(() -> new UnregisteredMetricsGroup());
        generator = s.createWatermarkGenerator(new WatermarkGeneratorSupplier.Context() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public RelativeClock getInputActivityClock() {
                return SystemClock.getInstance();
            }
        });
    }

    @Test
    void aBatch23HoursAheadUnderTheHonestVantageMovesNothing() {
        send(PacketBatches.fromEvents(FLOW.subList(0, 5)));
        // Flink's bounded out-of-orderness rule: largest time - 2 s - 1 ms
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001);

        send(PacketBatches.fromEvents(shifted(FLOW.subList(5, 10), System.currentTimeMillis() + 23 * HOUR_MS)));
        send(shifted(FLOW.subList(10, 11), System.currentTimeMillis() + 23 * HOUR_MS)
                .get(0));
        send(PacketBatches.fromEvents(
                shifted(FLOW.subList(5, 10), System.currentTimeMillis() + 23 * HOUR_MS, new Vantage("forged", "x"))));
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001);
    }

    @Test
    void aBatchWhosePacketsAreAllInvalidMovesNothingWhateverItsHeaderClaims() {
        send(PacketBatches.fromEvents(FLOW.subList(0, 5)));
        PacketBatch invalid = PacketBatches.fromEvents(shifted(FLOW.subList(5, 10), FIRST_PACKET_MS + 10_000));
        for (BatchedPacket p : invalid.getPackets()) {
            p.setWindow(70_000); // outside TCP's 16-bit window: the flow function drops every packet
        }
        send(invalid);
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001);

        // the same batch with valid packets moves the watermark to its first packet, 10 s later
        send(PacketBatches.fromEvents(shifted(FLOW.subList(5, 10), FIRST_PACKET_MS + 10_000)));
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001, FIRST_PACKET_MS + 10_000 - 2_001);
    }

    /**
     * The packets input admits new vantage names by the same token bucket as conntrack's (1 000 at
     * once, then 10 a second; {@link SlowestVantageWatermarks}): 10 001 batches under new names, 4 min
     * ahead of the clock (inside the 5 min future cap, so each would move its own vantage), neither
     * evict the honest vantage nor move the watermark past it; the honest vantage's next batch, 10 s
     * later, still drives it (the 999 admitted forged names are minutes ahead of it).
     */
    @Test
    void aFloodOfNewVantageNamesEvictsNoHonestVantage() {
        send(PacketBatches.fromEvents(FLOW.subList(0, 5)));
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001);
        long ahead = System.currentTimeMillis() + 4 * 60_000L;
        for (int i = 0; i <= 10_000; i++) {
            send(PacketBatches.fromEvents(shifted(FLOW.subList(5, 6), ahead, new Vantage("forged-" + i, "x"))));
        }
        assertThat(watermarks).as("watermarks after the flood").containsExactly(FIRST_PACKET_MS - 2_001);

        send(PacketBatches.fromEvents(shifted(FLOW.subList(5, 10), FIRST_PACKET_MS + 10_000)));
        assertThat(watermarks).containsExactly(FIRST_PACKET_MS - 2_001, FIRST_PACKET_MS + 10_000 - 2_001);
    }

    private void send(PacketBatch batch) {
        send(FlowBatches.encode(batch::toByteBuffer), PacketBatches.flowKey(batch));
    }

    private void send(PacketEvent event) {
        send(FlowBatches.encode(event::toByteBuffer), FlowBatches.key(event));
    }

    private void send(byte[] value, String key) {
        List<Either<DeadLetter, FlowBatch>> out = new ArrayList<>();
        deserializer.deserialize(
                new ConsumerRecord<>("flowtrace.packets", 0, 0, key.getBytes(StandardCharsets.UTF_8), value),
                new Collector<>() {
                    @Override
                    public void collect(Either<DeadLetter, FlowBatch> e) {
                        out.add(e);
                    }

                    @Override
                    public void close() {}
                });
        for (Either<DeadLetter, FlowBatch> e : out) {
            assertThat(e.isRight()).as("accepted by the source: %s", e).isTrue();
            generator.onEvent(e, timestamps.extractTimestamp(e, Long.MIN_VALUE), output);
        }
        generator.onPeriodicEmit(output);
    }

    private static List<PacketEvent> shifted(List<PacketEvent> events, long firstMs) {
        return shifted(events, firstMs, VANTAGE);
    }

    /** The events moved in time so that the first is at {@code firstMs}, spacing kept. */
    private static List<PacketEvent> shifted(List<PacketEvent> events, long firstMs, Vantage vantage) {
        long delta = firstMs * 1_000_000L - events.get(0).getCaptureTimeNs();
        List<PacketEvent> out = new ArrayList<>();
        for (PacketEvent e : events) {
            out.add(PacketEvent.newBuilder(e)
                    .setCaptureTimeNs(e.getCaptureTimeNs() + delta)
                    .setVantage(vantage)
                    .build());
        }
        return out;
    }
}
