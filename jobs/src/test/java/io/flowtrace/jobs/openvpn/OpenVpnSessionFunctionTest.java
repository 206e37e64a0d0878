package io.flowtrace.jobs.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The keyed OpenVPN function in Flink's operator harness: batches and watermarks in; sessions,
 * timers and state entries out. The expected sessions are the offline analysis's of the same
 * capture (core's OpenVpnCaptureAnalysis, checked against the clients' logs and tshark in core).
 */
class OpenVpnSessionFunctionTest {
    private static final Vantage VANTAGE = new Vantage("harness", "if0");
    private static final String CAPTURE = "openvpn/push-100k.client.pcap.gz";
    private static final Comparator<OpenVpnSessionRecord> ORDER = Comparator.comparingLong(
                    OpenVpnSessionRecord::getFirstSeenUs)
            .thenComparing(OpenVpnSessionRecord::getClient);

    @Test
    void reportsEverySessionAsTheOfflineAnalysisOnceItsFlowIsIdleAndClearsState() throws Exception {
        List<OpenVpnBatch> batches = OpenVpnFixtures.batches(CAPTURE, VANTAGE, 16, r -> {});
        List<OpenVpnSessionRecord> offline = OpenVpnFixtures.offline(CAPTURE, VANTAGE);
        long lastMs = 0;
        try (var harness = harness(null, null)) {
            long offset = 0;
            for (OpenVpnBatch b : batches) {
                FlowBatch r = OpenVpnFixtures.record(b, offset++);
                harness.processElement(r, r.timeMs);
                lastMs = Math.max(lastMs, r.timeMs);
            }
            long flows = batches.stream()
                    .map(io.flowtrace.avro.mapping.OpenVpnBatches::flowKey)
                    .distinct()
                    .count();
            // one UDP flow per client run (a fresh client port each time), each with its state and one timer
            assertThat(flows).isEqualTo(20);
            assertThat(harness.numEventTimeTimers()).isEqualTo(flows);
            assertThat(harness.numKeyedStateEntries()).isEqualTo(3 * flows);
            assertThat(harness.extractOutputValues()).isEmpty();

            // not idle yet: nothing is reported before 300 s of silence
            harness.processWatermark(lastMs + OpenVpnSessionFunction.IDLE_MS - 100_000);
            int early = harness.extractOutputValues().size();
            harness.processWatermark(lastMs + OpenVpnSessionFunction.IDLE_MS + 1);
            List<OpenVpnSessionRecord> streamed =
                    harness.extractOutputValues().stream().sorted(ORDER).toList();
            assertThat(early).isLessThan(streamed.size());
            assertThat(streamed).isEqualTo(offline.stream().sorted(ORDER).toList());
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void resumesFromACheckpointOnRocksDbWithTheSameSessions() throws Exception {
        List<OpenVpnBatch> batches = OpenVpnFixtures.batches(CAPTURE, VANTAGE, 7, r -> {});
        List<OpenVpnSessionRecord> offline = OpenVpnFixtures.offline(CAPTURE, VANTAGE);
        int half = batches.size() / 2;
        OperatorSubtaskState snapshot;
        try (var harness = harness(new EmbeddedRocksDBStateBackend(), null)) {
            for (int i = 0; i < half; i++) {
                FlowBatch r = OpenVpnFixtures.record(batches.get(i), i);
                harness.processElement(r, r.timeMs);
            }
            snapshot = harness.snapshot(1, 1);
        }
        try (var harness = harness(new EmbeddedRocksDBStateBackend(), snapshot)) {
            for (int i = half; i < batches.size(); i++) {
                FlowBatch r = OpenVpnFixtures.record(batches.get(i), i);
                harness.processElement(r, r.timeMs);
            }
            harness.processWatermark(Long.MAX_VALUE);
            // sessions of flows that went idle in the first half were not reported there (no watermark)
            assertThat(harness.extractOutputValues().stream().sorted(ORDER).toList())
                    .isEqualTo(offline.stream().sorted(ORDER).toList());
            assertThat(harness.numEventTimeTimers()).isZero(); // RocksDB cannot count its state entries
        }
    }

    @Test
    void deadLettersPacketsWhoseHeaderTheSnapLengthCutAndAnalysesTheRest() throws Exception {
        // Cut every 50th frame inside the session id (eth 14 + IPv4 20 + UDP 8 + 5 payload bytes). A
        // data packet (opcode 6 or 9 in the high 5 bits of payload byte 0) needs at most 4 header
        // bytes, so only the cut control and ACK packets are truncated.
        int[] frame = {0};
        int[] cutHeaders = {0};
        List<OpenVpnBatch> batches = OpenVpnFixtures.batches("openvpn/push-1k.client.pcap.gz", VANTAGE, 512, r -> {
            if (frame[0]++ % 50 == 49) {
                r.capturedLength = 47;
                int opcode = (r.data[r.dataOffset + 42] & 0xff) >>> 3;
                cutHeaders[0] += opcode == 6 || opcode == 9 ? 0 : 1;
            }
        });
        int cut = cutHeaders[0];
        try (var harness = harness(null, null)) {
            long offset = 0;
            for (OpenVpnBatch b : batches) {
                FlowBatch r = OpenVpnFixtures.record(b, offset++);
                harness.processElement(r, r.timeMs);
            }
            harness.processWatermark(Long.MAX_VALUE);
            List<DeadLetter> dead = harness.getSideOutput(OpenVpnSessionFunction.DEAD_LETTERS).stream()
                    .map(StreamRecord::getValue)
                    .toList();
            assertThat(dead.stream().mapToInt(DeadLetter::getPackets).sum())
                    .isEqualTo(cut)
                    .isPositive();
            assertThat(dead).allSatisfy(d -> {
                assertThat(d.getStage()).isEqualTo(DeadLetterStage.VALIDATE);
                assertThat(d.getReason()).contains("truncated OpenVPN header: OpenVPN session id truncated");
            });
            assertThat(harness.extractOutputValues()).hasSize(20);
            assertThat(harness.numKeyedStateEntries()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openvpn/tcp.push-1k.client.pcap.gz", "openvpn/tcp.push-1k.server.pcap.gz"})
    void overTcpReportsTheOfflineSessionsWithTheirTcpRetransmissions(String capture) throws Exception {
        List<OpenVpnBatch> batches = OpenVpnFixtures.batches(capture, VANTAGE, 16, r -> {});
        List<OpenVpnSessionRecord> offline = OpenVpnFixtures.offline(capture, VANTAGE);
        try (var harness = harness(null, null)) {
            long offset = 0;
            for (OpenVpnBatch b : batches) {
                assertThat(b.getTransport()).isEqualTo(OpenVpnBatches.TCP);
                FlowBatch r = OpenVpnFixtures.record(b, offset++);
                harness.processElement(r, r.timeMs);
            }
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(harness.extractOutputValues().stream().sorted(ORDER).toList())
                    .isEqualTo(offline.stream().sorted(ORDER).toList());
            assertThat(harness.getSideOutput(OpenVpnSessionFunction.DEAD_LETTERS))
                    .isNullOrEmpty();
        }
        // 12 setups over TCP (testdata/openvpn/README.md), none resent by OpenVPN itself
        assertThat(offline).hasSize(12).allSatisfy(s -> {
            assertThat(s.getWire().getTransport()).isEqualTo("tcp");
            assertThat(s.getC2s().getRetransmits() + s.getS2c().getRetransmits())
                    .isZero();
        });
    }

    @Test
    void readsBatchesOfV1AgentsAsThoseAgentsWereConfigured() throws Exception {
        // a v1 agent had no wrapping detection: it wrote its options (plain here), so the sessions are
        // the offline ones read plain, with wire.detected false
        Schema v1 = OpenVpnBatches.OLDER_WRITERS.get(0);
        assertThat(v1.getField("wrapping_detected")).isNull();
        List<OpenVpnSessionRecord> offline = OpenVpnFixtures.offline("openvpn/push-1k.client.pcap.gz", VANTAGE);
        try (var harness = harness(null, null)) {
            long offset = 0;
            for (OpenVpnBatch b : OpenVpnFixtures.batches("openvpn/push-1k.client.pcap.gz", VANTAGE, 16, r -> {})) {
                FlowBatch current = OpenVpnFixtures.record(b, offset++);
                FlowBatch r = new FlowBatch(
                        current.key,
                        current.timeMs,
                        current.packets,
                        current.topic,
                        current.partition,
                        current.offset,
                        current.kafkaTimestampMs,
                        current.recordKey,
                        singleObject(v1, (GenericRecord) generic(b, v1)));
                harness.processElement(r, r.timeMs);
            }
            harness.processWatermark(Long.MAX_VALUE);
            List<OpenVpnSessionRecord> expected = new ArrayList<>();
            for (OpenVpnSessionRecord s : offline) {
                OpenVpnSessionRecord e = OpenVpnSessionRecord.newBuilder(s).build();
                e.getWire().setDetected(false);
                expected.add(e);
            }
            assertThat(expected)
                    .hasSize(20)
                    .allMatch(s -> s.getWire().getWrapping().equals("plain"));
            assertThat(harness.extractOutputValues().stream().sorted(ORDER).toList())
                    .isEqualTo(expected.stream().sorted(ORDER).toList());
            assertThat(harness.getSideOutput(OpenVpnSessionFunction.DEAD_LETTERS))
                    .isNullOrEmpty();
        }
    }

    /** A generated record's value as a generic datum of {@code schema}, field by field by name. */
    private static Object generic(Object value, Schema schema) {
        return switch (schema.getType()) {
            case RECORD -> {
                GenericRecord r = new GenericData.Record(schema);
                SpecificRecord from = (SpecificRecord) value;
                for (Schema.Field f : schema.getFields()) {
                    Schema.Field source = from.getSchema().getField(f.name());
                    r.put(f.name(), generic(from.get(source.pos()), f.schema()));
                }
                yield r;
            }
            case ARRAY ->
                ((List<?>) value)
                        .stream().map(v -> generic(v, schema.getElementType())).toList();
            default -> value;
        };
    }

    /** Avro single-object encoding by hand: C3 01, the writer fingerprint little-endian, the datum. */
    private static byte[] singleObject(Schema schema, GenericRecord datum) throws java.io.IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xC3);
        out.write(0x01);
        long fp = SchemaNormalization.parsingFingerprint64(schema);
        for (int i = 0; i < 8; i++) {
            out.write((int) (fp >>> (8 * i)) & 0xff);
        }
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(datum, e);
        e.flush();
        return out.toByteArray();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, OpenVpnSessionRecord> harness(
            StateBackend backend, OperatorSubtaskState restore) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new OpenVpnSessionFunction()), new FlowKeySelector(), Types.STRING);
        if (backend != null) {
            harness.setStateBackend(backend);
        }
        if (restore != null) {
            harness.initializeState(restore);
        }
        harness.open();
        return harness;
    }
}
