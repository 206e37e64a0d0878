package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowBatches;
import io.flowtrace.jobs.flow.FlowBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** One topic, two contracts: what the packets source makes of PacketBatch and PacketEvent records. */
class PacketRecordDeserializerTest {
    private static final Vantage VANTAGE = new Vantage("deser", "eth0");
    private static final List<PacketEvent> FLOW = CaptureFixtures.packets("decoding/tcp4-sack.pcap", VANTAGE);

    @Test
    void keysAndTimesABatchByItsHeaderAndHandsTheValueOnUnchanged() {
        List<PacketEvent> events = FLOW.subList(3, 10);
        PacketBatch batch = PacketBatches.fromEvents(events);
        byte[] value = FlowBatches.encode(batch::toByteBuffer);
        String key = FlowBatches.key(events.get(0));

        Either<DeadLetter, FlowBatch> out =
                one(new ConsumerRecord<>("p", 2, 77, key.getBytes(StandardCharsets.UTF_8), value));

        assertThat(out.isRight()).isTrue();
        FlowBatch b = out.right();
        assertThat(b.key).isEqualTo(key);
        // event time = the first packet's capture time, in ms
        assertThat(b.timeMs).isEqualTo(events.get(0).getCaptureTimeNs() / 1_000_000);
        assertThat(b.packets).isEqualTo(7);
        assertThat(b.value).isSameAs(value);
        assertThat(List.of(b.topic, b.partition, b.offset)).containsExactly("p", 2, 77L);
    }

    @Test
    void keysAnEventAsBeforeBatchesExisted() {
        PacketEvent e = FLOW.get(0);
        Either<DeadLetter, FlowBatch> out =
                one(new ConsumerRecord<>("p", 0, 1, null, FlowBatches.encode(e::toByteBuffer)));

        assertThat(out.right().key).isEqualTo(FlowBatches.key(e));
        assertThat(out.right().timeMs).isEqualTo(e.getCaptureTimeNs() / 1_000_000);
        assertThat(out.right().packets).isEqualTo(1);
    }

    @Test
    void deadLettersABatchWhoseKafkaKeyIsAnotherFlowWithItsPacketCount() {
        byte[] value = FlowBatches.encode(PacketBatches.fromEvents(FLOW.subList(0, 4))::toByteBuffer);
        byte[] otherKey = "deser/eth0|10.9.9.9:1|10.9.9.9:2".getBytes(StandardCharsets.UTF_8);

        DeadLetter d = one(new ConsumerRecord<>("p", 0, 5, otherKey, value)).left();

        assertThat(d.getStage()).isEqualTo(DeadLetterStage.VALIDATE);
        assertThat(d.getReason())
                .startsWith("Kafka key 'deser/eth0|10.9.9.9:1|10.9.9.9:2' is not the flow of the batch's endpoints");
        assertThat(d.getPackets()).isEqualTo(4);
        assertThat(d.getSchemaFingerprint()).isEqualTo(PacketBatches.FINGERPRINT);
        assertThat(d.getRaw().remaining()).isEqualTo(value.length);
    }

    @Test
    void deadLettersABatchClaimingAbsurdlyManyPackets() {
        PacketBatch batch = PacketBatches.fromEvents(FLOW.subList(0, 1));
        byte[] value = FlowBatches.encode(batch::toByteBuffer);
        // the packets array is the last field: its count (zig-zag 1 = 0x02) directly follows high_seq_base;
        // replace the one-packet array by a count of 10^6 (zig-zag 2*10^6 = varint 80 89 7A) and no items
        int countAt = value.length - 1 - packetBytes(batch) - 1;
        assertThat(value[countAt]).isEqualTo((byte) 0x02);
        byte[] bomb = Arrays.copyOf(value, countAt + 3);
        bomb[countAt] = (byte) 0x80;
        bomb[countAt + 1] = (byte) 0x89;
        bomb[countAt + 2] = (byte) 0x7A;

        DeadLetter d = one(new ConsumerRecord<>("p", 0, 6, null, bomb)).left();

        assertThat(d.getStage()).isEqualTo(DeadLetterStage.VALIDATE);
        assertThat(d.getReason()).isEqualTo("a batch of 1000000 packets (1 to 16384 accepted)");
        assertThat(d.getPackets()).isEqualTo(1_000_000);
    }

    @Test
    void deadLettersABatchCutInsideItsHeader() {
        byte[] value = FlowBatches.encode(PacketBatches.fromEvents(FLOW.subList(0, 2))::toByteBuffer);

        DeadLetter d = one(new ConsumerRecord<>("p", 0, 7, null, Arrays.copyOf(value, 20)))
                .left();

        assertThat(d.getStage()).isEqualTo(DeadLetterStage.DECODE);
        assertThat(d.getReason()).startsWith("PacketBatch ");
        assertThat(d.getPackets()).isNull();
    }

    /** Bytes of the batch's packet items: everything after the count, before the array's closing 0. */
    private static int packetBytes(PacketBatch batch) {
        PacketBatch empty = PacketBatch.newBuilder(batch).setPackets(List.of()).build();
        // with no items the array is just the closing 0; with items it is count, items, 0
        return FlowBatches.encode(batch::toByteBuffer).length - FlowBatches.encode(empty::toByteBuffer).length - 1;
    }

    private static Either<DeadLetter, FlowBatch> one(ConsumerRecord<byte[], byte[]> record) {
        List<Either<DeadLetter, FlowBatch>> out = new ArrayList<>();
        new PacketRecordDeserializer().deserialize(record, new Collector<>() {
            @Override
            public void collect(Either<DeadLetter, FlowBatch> e) {
                out.add(e);
            }

            @Override
            public void close() {}
        });
        assertThat(out).hasSize(1);
        return out.get(0);
    }
}
