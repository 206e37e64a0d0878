package io.flowtrace.jobs.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.TypeDatasetFacet;
import org.apache.flink.connector.kafka.lineage.TypeDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.junit.jupiter.api.Test;

/**
 * The Kafka outputs' encoder writes exactly what Avro's own {@code BinaryMessageEncoder} writes
 * (the single-object encoding of docs/schemas.md), for real flow records and for dead letters with
 * and without their optional fields.
 */
class AvroSingleObjectSerializationSchemaTest {

    @Test
    void encodesRealFlowRecordsByteForByteAsAvrosMessageEncoder() throws Exception {
        List<FlowRecord> records = new ArrayList<>();
        for (String capture :
                List.of("tcp/cubic-loss.sender.pcap.gz", "tcp/short-conns.sender.pcap.gz", "join/client.pcap")) {
            try (InputStream in = Files.newInputStream(TestData.file(capture))) {
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("agent-1", "eth0"))
                        .run(
                                in,
                                (key, instance, flow) ->
                                        records.add(FlowRecords.of(key, instance, flow, 1_700_000_000_000_000L)),
                                TcpEventSinkFactory.NONE,
                                error -> {},
                                n -> {});
            }
        }
        assertThat(records).hasSizeGreaterThan(240); // short-conns alone has 240 connections
        AvroSingleObjectSerializationSchema<FlowRecord> schema =
                AvroSingleObjectSerializationSchema.of(FlowRecord.class);
        for (FlowRecord r : records) {
            assertThat(schema.serialize(r))
                    .isEqualTo(FlowRecord.getEncoder().encode(r).array());
        }
    }

    @Test
    void encodesDeadLettersWithAndWithoutOptionalFieldsAsAvrosMessageEncoder() throws Exception {
        DeadLetter full = DeadLetter.newBuilder()
                .setTopic("flowtrace.packets")
                .setPartition(3)
                .setOffset(1L << 40)
                .setTimestampMs(1_700_000_000_123L)
                .setReason("a batch of 3 packets: bad window")
                .setKey(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .setRaw(ByteBuffer.wrap(new byte[] {(byte) 0xC3, 1, 9}))
                .setStage(DeadLetterStage.VALIDATE)
                .setErrorClass("java.io.EOFException")
                .setSchemaFingerprint(-42L)
                .setJobTimeMs(1_700_000_001_000L)
                .setPackets(3)
                .build();
        DeadLetter bare = DeadLetter.newBuilder(full)
                .setKey(null)
                .setErrorClass(null)
                .setSchemaFingerprint(null)
                .setRaw(ByteBuffer.wrap(new byte[0]))
                .build();
        AvroSingleObjectSerializationSchema<DeadLetter> schema =
                AvroSingleObjectSerializationSchema.of(DeadLetter.class);
        for (DeadLetter d : List.of(full, bare, full)) { // the reused buffer and encoder leave nothing behind
            assertThat(schema.serialize(d))
                    .isEqualTo(DeadLetter.getEncoder().encode(d).array());
        }
    }

    /**
     * KafkaSink's lineage asks the value schema for its element type; a generic schema class without
     * {@link org.apache.flink.api.java.typeutils.ResultTypeQueryable} made Flink's type extractor log
     * an InvalidTypesException for every Kafka sink at job start. The connector's own call answers.
     */
    @Test
    void kafkaSinkGetsTheElementTypeFromTheSchema() {
        KafkaRecordSerializationSchema<FlowRecord> record = KafkaRecordSerializationSchema.<FlowRecord>builder()
                .setTopic("flowtrace.flows")
                .setValueSerializationSchema(AvroSingleObjectSerializationSchema.of(FlowRecord.class))
                .build();
        Optional<TypeDatasetFacet> facet = ((TypeDatasetFacetProvider) record).getTypeDatasetFacet();
        assertThat(facet).isPresent();
        assertThat(facet.get().getTypeInformation()).isEqualTo(new AvroTypeInfo<>(FlowRecord.class));
        assertThat(facet.get().getTypeInformation().getTypeClass()).isEqualTo(FlowRecord.class);
    }
}
