package io.flowtrace.jobs.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

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
