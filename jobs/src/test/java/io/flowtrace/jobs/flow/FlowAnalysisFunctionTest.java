package io.flowtrace.jobs.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.FlowEnd;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.flow.FlowLifecycle;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowBatches;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowRowPolicy;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The keyed flow function in Flink's operator harness, in the style of flink-training's
 * LongRidesUnitTest: elements and watermarks in, records, timers and state entries out.
 */
class FlowAnalysisFunctionTest {
    private static final Vantage VANTAGE = new Vantage("harness", "eth0");
    private static final String CAPTURE = "decoding/tcp4-sack.pcap";
    private static final long UPDATE_MS = 10_000;
    private static final long T0_NS = 1_796_000_000_000_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void reportsARealCaptureFlowExactlyAsTheOfflineAnalysis() throws Exception {
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        try (var harness = harness(null)) {
            feed(harness, packets);
            harness.processWatermark(Long.MAX_VALUE);
            List<FlowSummary> finals = finals(harness);
            assertThat(finals).hasSize(1);
            Map<String, JsonNode> offline = CaptureFixtures.offlineReports(CAPTURE, "harness/eth0");
            JsonNode streamed = JSON.readTree(finalRows(harness).get(0).reportJson);
            assertThat(CaptureFixtures.flatten(streamed))
                    .isEqualTo(CaptureFixtures.flatten(offline.get(CaptureFixtures.identity(streamed))));
            assertThat(harness.getSideOutput(FlowAnalysisFunction.TCP_EVENTS)).isNotNull();
        }
    }

    @Test
    void endsAClosedFlowAfterTheLingerAndClearsState() throws Exception {
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        long lastMs = packets.get(packets.size() - 1).getCaptureTimeNs() / 1_000_000;
        try (var harness = harness(null)) {
            feed(harness, packets);
            // FIN/FIN seen 0.16 s after the SYN (capinfos: capture duration 0.161588 s), before the
            // first periodic update (10 s): no version until the final one, after the linger.
            harness.processWatermark(lastMs + FlowLifecycle.CLOSED_LINGER_NANOS / 1_000_000 - 1);
            assertThat(harness.extractOutputValues()).isEmpty();
            harness.processWatermark(lastMs + FlowLifecycle.CLOSED_LINGER_NANOS / 1_000_000 + 1);
            assertThat(harness.extractOutputValues())
                    .singleElement()
                    .satisfies(s -> assertThat(s.finalRecord).isTrue())
                    .satisfies(s -> assertThat(s.record().getEnd()).isEqualTo(FlowEnd.FIN));
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void aFlowThatClosesBeforeItsFirstUpdateHasOnlyItsFinalVersion() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_010, 1000, T0_NS);
            long rstNs = T0_NS + 3_000_000; // 3 ms after the SYN, the first update is due at 10 s
            harness.processElement(
                    event(rstNs, true, 40_010, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001), rstNs / 1_000_000);
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(harness.extractOutputValues()).singleElement().satisfies(s -> {
                assertThat(s.finalRecord).isTrue();
                assertThat(s.record().getEnd()).isEqualTo(FlowEnd.RST);
                assertThat(s.record().getC2s().getPackets()).isEqualTo(3); // SYN, ACK, RST
            });
        }
    }

    @Test
    void aFlowClosedAfterItsFirstUpdateGetsItsCloseUpdateButNoPeriodicOnesWhileItLingers() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_011, 1000, T0_NS);
            long t0Ms = T0_NS / 1_000_000;
            harness.processWatermark(t0Ms + 10_001); // the first periodic update (due at 10 s)
            long rstNs = T0_NS + 12_000_000_000L;
            harness.processElement(
                    event(rstNs, true, 40_011, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001), rstNs / 1_000_000);
            // the second update would be due at 20 s, inside the 10 s linger that ends at 22 s
            harness.processWatermark(t0Ms + 21_999);
            assertThat(harness.extractOutputValues())
                    .extracting(
                            s -> s.record().getRecordTimeUs(), s -> s.record().getEnd(), s -> s.finalRecord)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(T0_NS / 1000 + 10_000_000, FlowEnd.OPEN, false),
                            org.assertj.core.groups.Tuple.tuple(rstNs / 1000, FlowEnd.RST, false));
            harness.processWatermark(t0Ms + 22_001);
            assertThat(finals(harness))
                    .singleElement()
                    .satisfies(s -> assertThat(s.record().getEnd()).isEqualTo(FlowEnd.RST));
            // one flow_summary row per version (10 s, the close at 12 s, the final at 22 s), each with
            // its report: no close-time row of its own
            assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS))
                    .extracting(r -> r.getValue().recordTimeUs, r -> r.getValue().reportJson != null)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(T0_NS / 1000 + 10_000_000, true),
                            org.assertj.core.groups.Tuple.tuple(rstNs / 1000, true),
                            org.assertj.core.groups.Tuple.tuple((t0Ms + 22_000) * 1000, true));
        }
    }

    @Test
    void aShortFlowGetsItsRowAtTheClosingPacketAndItsFinalVersionAfterTheLinger() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_020, 1000, T0_NS);
            long rstNs = T0_NS + 3_000_000; // 3 ms after the SYN, the first update is due at 10 s
            long rstMs = rstNs / 1_000_000;
            harness.processElement(
                    event(rstNs, true, 40_020, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001), rstMs);

            // at the RST, before any watermark: the row only, not final, at the RST's time, no report
            assertThat(harness.extractOutputValues()).isEmpty();
            assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.getTimestamp()).isEqualTo(rstMs);
                        FlowRow row = r.getValue();
                        assertThat(row.finalRecord).isFalse();
                        assertThat(row.recordTimeUs).isEqualTo(rstNs / 1000);
                        assertThat(row.reportJson).isNull();
                        assertThat(text(row, FlowFields.END)).isEqualTo("rst");
                        assertThat(integer(row, FlowFields.PACKETS, FlowField.Side.C2S))
                                .isEqualTo(3); // SYN, ACK, RST
                        assertThat(integer(row, FlowFields.PACKETS, FlowField.Side.S2C))
                                .isEqualTo(1); // SYN-ACK
                    });

            // nothing more until the linger ends: 10 s of event time after the RST
            harness.processWatermark(rstMs + 9_999);
            assertThat(harness.extractOutputValues()).isEmpty();
            assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS)).hasSize(1);
            harness.processWatermark(rstMs + 10_000);
            assertThat(harness.extractOutputValues())
                    .singleElement()
                    .satisfies(s -> assertThat(s.finalRecord).isTrue())
                    .satisfies(s -> assertThat(s.record().getEnd()).isEqualTo(FlowEnd.RST));
            // the final row follows, later in record time (the linger's end), with the report
            assertThat(finalRows(harness)).singleElement().satisfies(row -> {
                assertThat(row.recordTimeUs).isEqualTo((rstMs + 10_000) * 1000);
                assertThat(JSON.readTree(row.reportJson).get("end").asText()).isEqualTo("rst");
            });
            assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS)).hasSize(2);
            assertThat(harness.numKeyedStateEntries()).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"none", "notable"})
    void theCloseRowFollowsTheOutputPolicy(String policy) throws Exception {
        FlowRowPolicy rows = new FlowRowPolicy(FlowRowPolicy.Rows.parse(policy), 0, 500_000);
        try (var harness = harnessWithRows(rows)) {
            // a reset flow (notable: it ended with a RST) on port 40 022
            handshake(harness, 40_022, 1000, T0_NS);
            long rstNs = T0_NS + 3_000_000;
            harness.processElement(
                    event(rstNs, true, 40_022, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001), rstNs / 1_000_000);
            // a FIN exchange on port 40 023: no retransmission, setup 2 ms (< 500 ms), no reset: not notable
            handshake(harness, 40_023, 1000, T0_NS);
            harness.processElement(
                    event(rstNs, true, 40_023, DecodedPacket.FIN | DecodedPacket.ACK, 1001, 5001), rstNs / 1_000_000);
            long finNs = T0_NS + 4_000_000; // the server's FIN closes it
            harness.processElement(
                    event(finNs, false, 40_023, DecodedPacket.FIN | DecodedPacket.ACK, 5001, 1002), finNs / 1_000_000);
            List<Long> before = rowTimes(harness);
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(harness.extractOutputValues())
                    .hasSize(2)
                    .allSatisfy(v -> assertThat(v.finalRecord).isTrue());
            if (policy.equals("none")) {
                assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS))
                        .isNull();
                assertThat(before).isEmpty();
            } else {
                // the reset flow's close row at its RST, then its final row; none of the FIN flow
                assertThat(before).containsExactly(rstNs / 1000);
                assertThat(harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS))
                        .extracting(r -> r.getValue().finalRecord, r -> text(r.getValue(), FlowFields.END))
                        .containsExactly(
                                org.assertj.core.groups.Tuple.tuple(false, "rst"),
                                org.assertj.core.groups.Tuple.tuple(true, "rst"));
                // under notable the close row carries its report (its final row may not follow): the
                // RST's version, 3 packets client to server (SYN, ACK, RST) and 1 back (SYN-ACK)
                FlowRow closeRow = harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS)
                        .peek()
                        .getValue();
                var report = JSON.readTree(closeRow.reportJson);
                assertThat(report.get("end").asText()).isEqualTo("rst");
                assertThat(report.at("/c2s/packets").asLong()).isEqualTo(3);
                assertThat(report.at("/s2c/packets").asLong()).isEqualTo(1);
            }
        }
    }

    @Test
    void expiresIdleFlowAndClearsState() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_000, 1000, T0_NS);
            assertThat(harness.numKeyedStateEntries()).isEqualTo(1);
            assertThat(harness.numEventTimeTimers()).isEqualTo(1);
            long idleMs = AnalyzerConfig.DEFAULTS.idleTimeoutNanos() / 1_000_000;
            long lastMs = (T0_NS + 2_000_000) / 1_000_000;
            harness.processWatermark(lastMs + idleMs - 1);
            assertThat(finals(harness)).isEmpty();
            // Periodic upserts while it lived: one every 10 s of event time.
            long updates = harness.extractOutputValues().stream()
                    .filter(s -> !s.finalRecord)
                    .count();
            assertThat(updates).isEqualTo(idleMs / UPDATE_MS);
            harness.processWatermark(lastMs + idleMs + 1);
            assertThat(finals(harness))
                    .singleElement()
                    .satisfies(s -> assertThat(s.record().getEnd()).isEqualTo(FlowEnd.IDLE));
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void aTimerThatFindsTheDeadlineMovedLaterReArmsOnceAndTheFlowExpiresAtTheNewOne() throws Exception {
        // updates every 60 s, so the half-open deadline (30 s, AnalyzerConfig.DEFAULTS) is the first wake-up
        try (var harness = harnessOf(new FlowAnalysisFunction(AnalyzerConfig.DEFAULTS, 60_000))) {
            long t0Ms = T0_NS / 1_000_000;
            harness.processElement(event(T0_NS, true, 40_020, DecodedPacket.SYN, 1000, 0), t0Ms);
            assertThat(harness.numEventTimeTimers()).isEqualTo(1); // at T0 + 30 s
            // a retransmitted SYN at T0 + 20 s moves the deadline to T0 + 50 s without a second timer
            long retryNs = T0_NS + 20_000_000_000L;
            harness.processElement(event(retryNs, true, 40_020, DecodedPacket.SYN, 1000, 0), retryNs / 1_000_000);
            assertThat(harness.numEventTimeTimers()).isEqualTo(1);
            harness.processWatermark(t0Ms + 30_000); // the old timer fires, finds the flow alive, re-arms
            assertThat(harness.extractOutputValues()).isEmpty();
            assertThat(harness.numKeyedStateEntries()).isEqualTo(1);
            assertThat(harness.numEventTimeTimers()).isEqualTo(1);
            harness.processWatermark(t0Ms + 49_999);
            assertThat(harness.extractOutputValues()).isEmpty();
            harness.processWatermark(t0Ms + 50_000);
            assertThat(harness.extractOutputValues()).singleElement().satisfies(s -> {
                assertThat(s.finalRecord).isTrue();
                assertThat(s.record().getEnd()).isEqualTo(FlowEnd.IDLE);
                assertThat(s.record().getRecordTimeUs()).isEqualTo(T0_NS / 1000 + 50_000_000); // T0 + 50 s in µs
            });
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void startsASecondInstanceWhenAClosedPortPairIsReused() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_001, 1000, T0_NS);
            harness.processElement(
                    event(T0_NS + 3_000_000, true, 40_001, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001),
                    (T0_NS + 3_000_000) / 1_000_000);
            // Same ports one second later, a new ISN: a new connection on the reused port pair.
            handshake(harness, 40_001, 900_000, T0_NS + 1_000_000_000L);
            harness.processWatermark(Long.MAX_VALUE);
            List<FlowSummary> finals = finals(harness);
            // instance id = the first packet's capture time in µs (InstanceIdentity.instanceId)
            assertThat(finals)
                    .extracting(s -> s.record().getFlow().getInstance())
                    .containsExactly(T0_NS / 1000, (T0_NS + 1_000_000_000L) / 1000);
            assertThat(finals).extracting(s -> s.record().getEnd()).containsExactly(FlowEnd.RST, FlowEnd.OPEN);
            assertThat(harness.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void countsLatePacketsAndStillAnalysesThem() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_002, 1000, T0_NS);
            harness.processWatermark(T0_NS / 1_000_000 + 5_000);
            harness.processElement(
                    event(T0_NS + 2_500_000, true, 40_002, DecodedPacket.ACK | DecodedPacket.PSH, 1001, 5001, 100),
                    (T0_NS + 2_500_000) / 1_000_000);
            harness.processWatermark(Long.MAX_VALUE);
            FlowSummary last = finals(harness).get(0);
            assertThat(last.latePackets).isEqualTo(1);
            assertThat(last.record().getC2s().getDataBytes()).isEqualTo(100);
        }
    }

    /**
     * A flow whose packets all lag the job's event time by far more than its timeouts (a partition
     * read behind the others, an agent replaying its spool): the watermark moves on a little between
     * two of its packets, as the periodic watermark does under load. Measured from capture time, the
     * SYN's half-open deadline (30 s) is already 70 s behind the watermark, and the flow was cut after
     * its SYN: a second instance started at the SYN-ACK (NoGenericTypesITCase saw 253 final rows
     * instead of 252). Measured from the watermark at the late packet's arrival, it is one flow.
     */
    @Test
    void aFlowBehindTheWatermarkIsNotCutBetweenItsOwnPackets() throws Exception {
        long aheadMs = T0_NS / 1_000_000 + 100_000; // 100 s of event time ahead of the flow
        try (var harness = harness(null)) {
            harness.processWatermark(aheadMs);
            harness.processElement(event(T0_NS, true, 40_003, DecodedPacket.SYN, 1000, 0), T0_NS / 1_000_000);
            harness.processWatermark(aheadMs + 1);
            harness.processElement(
                    event(T0_NS + 1_000_000, false, 40_003, DecodedPacket.SYN | DecodedPacket.ACK, 5000, 1001),
                    (T0_NS + 1_000_000) / 1_000_000);
            harness.processWatermark(aheadMs + 2);
            harness.processElement(
                    event(T0_NS + 2_000_000, true, 40_003, DecodedPacket.ACK | DecodedPacket.PSH, 1001, 5001, 100),
                    (T0_NS + 2_000_000) / 1_000_000);
            harness.processWatermark(Long.MAX_VALUE);
            List<FlowSummary> finals = finals(harness);
            assertThat(finals).singleElement().satisfies(f -> {
                assertThat(f.record().getFlow().getInstance()).isEqualTo(T0_NS / 1000);
                assertThat(f.latePackets).isEqualTo(3);
                assertThat(f.record().getC2s().getDataBytes()).isEqualTo(100);
                assertThat(f.record().getSetup().getHandshakeRttUs()).isEqualTo(2_000L); // SYN to ACK, 2 ms
            });
            assertThat(harness.numKeyedStateEntries()).isZero();
        }
    }

    /** A late flow that really goes quiet expires one idle timeout after the watermark it arrived at. */
    @Test
    void aLateFlowExpiresOneTimeoutAfterTheWatermarkItArrivedAt() throws Exception {
        long aheadMs = T0_NS / 1_000_000 + 100_000;
        long idleMs = AnalyzerConfig.DEFAULTS.idleTimeoutNanos() / 1_000_000;
        try (var harness = harness(null)) {
            harness.processWatermark(aheadMs);
            handshake(harness, 40_004, 1000, T0_NS);
            harness.processWatermark(aheadMs + idleMs - 1);
            assertThat(finals(harness)).isEmpty();
            harness.processWatermark(aheadMs + idleMs + 1);
            assertThat(finals(harness))
                    .singleElement()
                    .satisfies(s -> assertThat(s.record().getEnd()).isEqualTo(FlowEnd.IDLE));
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void restoresMidFlowFromASnapshotAndGivesTheSameFinalRecord(String backend) throws Exception {
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        String uninterrupted;
        try (var harness = harness(null)) {
            feed(harness, packets);
            harness.processWatermark(Long.MAX_VALUE);
            uninterrupted = finalRows(harness).get(0).reportJson;
        }
        int half = packets.size() / 2;
        OperatorSubtaskState snapshot;
        try (var before = harness(backend(backend))) {
            feed(before, packets.subList(0, half));
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = harness(backend(backend), snapshot)) {
            // The harness counts keyed state entries of heap backends only.
            boolean heap = backend.equals("hashmap");
            if (heap) {
                assertThat(after.numKeyedStateEntries()).isEqualTo(1);
            }
            feed(after, packets.subList(half, packets.size()));
            after.processWatermark(Long.MAX_VALUE);
            assertThat(finalRows(after))
                    .singleElement()
                    .satisfies(s -> assertThat(s.reportJson).isEqualTo(uninterrupted));
            if (heap) {
                assertThat(after.numKeyedStateEntries()).isZero();
            }
            assertThat(after.numEventTimeTimers()).isZero();
        }
    }

    /**
     * A savepoint (canonical format, as {@code flink savepoint} writes) taken mid-flow on one backend
     * and restored on the same or the other backend: the restored operator finishes the flow with the
     * same final record as an uninterrupted run, and leaves no state or timer behind.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rocksdb>rocksdb", "hashmap>rocksdb", "rocksdb>hashmap"})
    void restoresFromACanonicalSavepointAcrossStateBackends(String fromTo) throws Exception {
        String from = fromTo.substring(0, fromTo.indexOf('>'));
        String to = fromTo.substring(fromTo.indexOf('>') + 1);
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        String uninterrupted;
        try (var harness = harness(null)) {
            feed(harness, packets);
            harness.processWatermark(Long.MAX_VALUE);
            uninterrupted = finalRows(harness).get(0).reportJson;
        }
        int third = packets.size() / 3;
        OperatorSubtaskState savepoint;
        try (var before = harness(backend(from))) {
            feed(before, packets.subList(0, third));
            savepoint = before.snapshotWithLocalState(
                            1L,
                            1L,
                            org.apache.flink.runtime.checkpoint.SavepointType.savepoint(
                                    org.apache.flink.core.execution.SavepointFormatType.CANONICAL))
                    .getJobManagerOwnedState();
        }
        try (var after = harness(backend(to), savepoint)) {
            assertThat(after.numEventTimeTimers())
                    .as("the flow's timer is restored")
                    .isEqualTo(1);
            feed(after, packets.subList(third, packets.size()));
            after.processWatermark(Long.MAX_VALUE);
            assertThat(finalRows(after))
                    .singleElement()
                    .satisfies(s -> assertThat(s.reportJson).isEqualTo(uninterrupted));
            if (to.equals("hashmap")) {
                assertThat(after.numKeyedStateEntries()).isZero();
            }
            assertThat(after.numEventTimeTimers()).isZero();
        }
    }

    @ParameterizedTest(name = "batches of {0}")
    @ValueSource(ints = {1, 2, 7, 64, 100_000})
    void batchesOfAnySizeGiveExactlyTheOutputsOfSingleEvents(int size) throws Exception {
        // The reference is the same packets fed one PacketEvent at a time (the path the offline
        // comparison above pins to analyze): same records, same event times, same TCP events.
        List<PacketEvent> packets = CaptureFixtures.packets("tcp/cubic-loss.sender.pcap.gz", VANTAGE);
        List<StreamRecord<FlowSummary>> single;
        List<io.flowtrace.avro.TcpEvent> singleEvents;
        try (var harness = harness(null)) {
            feed(harness, packets);
            harness.processWatermark(Long.MAX_VALUE);
            single = records(harness);
            singleEvents = tcpEvents(harness);
        }
        try (var harness = harness(null)) {
            for (List<PacketEvent> batch : FlowBatches.cut(packets, size, 100_000_000L)) {
                FlowBatch b = FlowBatches.ofBatch(batch);
                harness.processElement(b, b.timeMs);
            }
            harness.processWatermark(Long.MAX_VALUE);
            // per flow: the order across flows depends on how the packets were cut into batches
            assertThat(byFlow(records(harness))).isEqualTo(byFlow(single));
            assertThat(eventsByFlow(tcpEvents(harness))).isEqualTo(eventsByFlow(singleEvents));
            assertThat(single).isNotEmpty();
            assertThat(harness.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void eachPacketOfABatchIsLateOrNotByItsOwnCaptureTime() throws Exception {
        try (var harness = harness(null)) {
            handshake(harness, 40_003, 1000, T0_NS);
            long wm = T0_NS / 1_000_000 + 5_000;
            harness.processWatermark(wm);
            // one batch: a packet 2 s behind the watermark, then two after it
            FlowBatch b = FlowBatches.ofBatch(List.of(
                    packet(
                            T0_NS + 3_000_000_000L,
                            true,
                            40_003,
                            DecodedPacket.ACK | DecodedPacket.PSH,
                            1001,
                            5001,
                            100),
                    packet(
                            T0_NS + 6_000_000_000L,
                            true,
                            40_003,
                            DecodedPacket.ACK | DecodedPacket.PSH,
                            1101,
                            5001,
                            100),
                    packet(
                            T0_NS + 7_000_000_000L,
                            true,
                            40_003,
                            DecodedPacket.ACK | DecodedPacket.PSH,
                            1201,
                            5001,
                            100)));
            harness.processElement(b, b.timeMs);
            harness.processWatermark(Long.MAX_VALUE);
            FlowSummary last = finals(harness).get(0);
            assertThat(last.latePackets).isEqualTo(1);
            assertThat(last.record().getC2s().getDataBytes()).isEqualTo(300);
        }
    }

    @Test
    void anUpdateCausedByAPacketCarriesThatPacketsTimeNotTheBatchs() throws Exception {
        try (var harness = harness(null)) {
            long fin = T0_NS + 12_000_000_000L; // after the first update's time (10 s): a close update
            FlowBatch b = FlowBatches.ofBatch(List.of(
                    packet(T0_NS, true, 40_004, DecodedPacket.SYN, 1000, 0),
                    packet(T0_NS + 1_000_000, false, 40_004, DecodedPacket.SYN | DecodedPacket.ACK, 5000, 1001),
                    packet(T0_NS + 2_000_000, true, 40_004, DecodedPacket.ACK, 1001, 5001),
                    packet(fin, true, 40_004, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001)));
            harness.processElement(b, b.timeMs);
            // the RST update is emitted while the batch (event time T0) is processed, stamped with the RST's time
            assertThat(records(harness)).singleElement().satisfies(r -> {
                assertThat(r.getTimestamp()).isEqualTo(fin / 1_000_000);
                assertThat(r.getValue().record().getRecordTimeUs()).isEqualTo(fin / 1000);
            });
        }
    }

    @Test
    void recordTimeNeverGoesBackWhenAPeriodicUpdateFiresAfterALaterClose() throws Exception {
        // The update timer is due at T0 + 10 s. A data packet at T0 + 10.5 s arrives before the
        // watermark passes T0 + 10 s: the periodic update that fires next reports the state after
        // that packet, so it must say 10.5 s, not 10 s. Then the end of input: the flow is reported
        // at its next wake-up, the second update's time (20 s; the idle timeout is longer).
        try (var harness = harness(null)) {
            handshake(harness, 40_005, 1000, T0_NS);
            long dataNs = T0_NS + 10_500_000_000L;
            harness.processElement(
                    event(dataNs, true, 40_005, DecodedPacket.ACK | DecodedPacket.PSH, 1001, 5001, 100),
                    dataNs / 1_000_000);
            harness.processWatermark(T0_NS / 1_000_000 + 10_100);
            harness.processWatermark(Long.MAX_VALUE);
            List<Long> times = harness.extractOutputValues().stream()
                    .map(x -> x.record().getRecordTimeUs())
                    .toList();
            assertThat(times).containsExactly(dataNs / 1000, T0_NS / 1000 + 20_000_000);
        }
    }

    @Test
    void aBadPacketInABatchIsDroppedAloneAndCountedInADeadLetter() throws Exception {
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        int bad = 5;
        String withoutBad;
        try (var harness = harness(null)) {
            List<PacketEvent> others = new java.util.ArrayList<>(packets);
            others.remove(bad);
            harness.processElement(FlowBatches.ofBatch(others), others.get(0).getCaptureTimeNs() / 1_000_000);
            harness.processWatermark(Long.MAX_VALUE);
            withoutBad = finalRows(harness).get(0).reportJson;
        }
        try (var harness = harness(null)) {
            List<PacketEvent> all = new java.util.ArrayList<>(packets);
            all.set(bad, PacketEvent.newBuilder(all.get(bad)).setTtl(300).build());
            FlowBatch b = FlowBatches.ofBatch(all);
            harness.processElement(b, b.timeMs);
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(finalRows(harness))
                    .singleElement()
                    .satisfies(f -> assertThat(f.reportJson).isEqualTo(withoutBad));
            assertThat(harness.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.getValue().getStage()).isEqualTo(DeadLetterStage.VALIDATE);
                        assertThat(r.getValue().getPackets()).isEqualTo(1);
                        assertThat(r.getValue().getReason())
                                .isEqualTo("1 of " + all.size()
                                        + " packets rejected, the others analysed; packet 5: ttl 300 outside 8 bits");
                    });
        }
    }

    @Test
    void aBatchWhosePacketsDoNotDecodeIsDeadLetteredWholeAndLeavesNoState() throws Exception {
        FlowBatch b = FlowBatches.ofBatch(CaptureFixtures.packets(CAPTURE, VANTAGE));
        // cut the record inside its packets: the header (read by the source) stays valid
        b.value = java.util.Arrays.copyOf(b.value, b.value.length / 2);
        try (var harness = harness(null)) {
            harness.processElement(b, b.timeMs);
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(harness.extractOutputValues()).isEmpty();
            assertThat(harness.numKeyedStateEntries()).isZero();
            assertThat(harness.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.getValue().getStage()).isEqualTo(DeadLetterStage.DECODE);
                        assertThat(r.getValue().getPackets()).isEqualTo(b.packets);
                        assertThat(r.getValue().getReason()).startsWith("Avro length check: ");
                    });
        }
    }

    private static List<StreamRecord<FlowSummary>> records(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness) {
        List<StreamRecord<FlowSummary>> out = new java.util.ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                @SuppressWarnings("unchecked")
                StreamRecord<FlowSummary> s = (StreamRecord<FlowSummary>) r;
                out.add(s);
            }
        }
        return out;
    }

    /** Each flow's outputs in order, as (event time, final?, record). */
    private static Map<String, List<List<Object>>> byFlow(List<StreamRecord<FlowSummary>> records) {
        Map<String, List<List<Object>>> out = new java.util.TreeMap<>();
        for (StreamRecord<FlowSummary> r : records) {
            FlowSummary s = r.getValue();
            out.computeIfAbsent(s.record().getFlow().toString(), k -> new java.util.ArrayList<>())
                    .add(List.of(r.getTimestamp(), s.finalRecord, s.record()));
        }
        return out;
    }

    private static Map<String, List<io.flowtrace.avro.TcpEvent>> eventsByFlow(List<io.flowtrace.avro.TcpEvent> events) {
        Map<String, List<io.flowtrace.avro.TcpEvent>> out = new java.util.TreeMap<>();
        for (io.flowtrace.avro.TcpEvent e : events) {
            out.computeIfAbsent(e.getFlow().toString(), k -> new java.util.ArrayList<>())
                    .add(e);
        }
        return out;
    }

    private static List<io.flowtrace.avro.TcpEvent> tcpEvents(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness) {
        var side = harness.getSideOutput(FlowAnalysisFunction.TCP_EVENTS);
        return side == null
                ? List.of()
                : side.stream().map(StreamRecord::getValue).toList();
    }

    /**
     * {@code --max-flows-per-vantage} 2: two flows of the vantage are live, the record of a third is a
     * VALIDATE dead letter that names the option and leaves no state or timer; once one of the two has
     * ended (RST, then the linger) and its state and timer are gone, a new flow is admitted again.
     */
    @Test
    void aNewFlowOverTheVantagesBoundIsADeadLetterUntilAFlowEnds() throws Exception {
        var function = new FlowAnalysisFunction(AnalyzerConfig.DEFAULTS, UPDATE_MS, FlowRowPolicy.ALL, 2);
        try (var harness = harnessOf(function)) {
            handshake(harness, 40_100, 1000, T0_NS);
            handshake(harness, 40_101, 1000, T0_NS);
            assertThat(harness.numKeyedStateEntries()).isEqualTo(2);
            assertThat(harness.numEventTimeTimers()).isEqualTo(2);
            handshake(harness, 40_102, 1000, T0_NS); // three records of a third flow
            assertThat(harness.numKeyedStateEntries())
                    .as("state of the refused flow")
                    .isEqualTo(2);
            assertThat(harness.numEventTimeTimers()).isEqualTo(2);
            var refused = harness.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS);
            assertThat(refused).hasSize(3).allSatisfy(r -> {
                assertThat(r.getValue().getStage()).isEqualTo(DeadLetterStage.VALIDATE);
                assertThat(r.getValue().getReason().toString())
                        .contains("harness/eth0")
                        .contains("2 live flows")
                        .contains("--max-flows-per-vantage");
            });
            long rstNs = T0_NS + 3_000_000;
            harness.processElement(
                    event(rstNs, true, 40_100, DecodedPacket.RST | DecodedPacket.ACK, 1001, 5001), rstNs / 1_000_000);
            harness.processWatermark(rstNs / 1_000_000 + FlowLifecycle.CLOSED_LINGER_NANOS / 1_000_000 + 1);
            assertThat(finals(harness))
                    .singleElement()
                    .satisfies(f -> assertThat(f.record().getEnd()).isEqualTo(FlowEnd.RST));
            assertThat(harness.numKeyedStateEntries())
                    .as("state after the RST flow ended")
                    .isEqualTo(1);
            assertThat(harness.numEventTimeTimers()).isEqualTo(1);
            long laterNs = rstNs + FlowLifecycle.CLOSED_LINGER_NANOS + 10_000_000;
            handshake(harness, 40_103, 1000, laterNs);
            assertThat(harness.numKeyedStateEntries())
                    .as("a new flow after one ended")
                    .isEqualTo(2);
            assertThat(harness.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS)).hasSize(3);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harnessOf(
            FlowAnalysisFunction function) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(function), new FlowKeySelector(), Types.STRING);
        harness.open();
        return harness;
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness(StateBackend backend)
            throws Exception {
        return harness(backend, null);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness(
            StateBackend backend, OperatorSubtaskState restore) throws Exception {
        return harness(new FlowAnalysisFunction(AnalyzerConfig.DEFAULTS, UPDATE_MS), backend, restore);
    }

    /** With the flow_summary rows of the output policy {@code rows}. */
    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harnessWithRows(
            FlowRowPolicy rows) throws Exception {
        return harness(new FlowAnalysisFunction(AnalyzerConfig.DEFAULTS, UPDATE_MS, rows), null, null);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness(
            FlowAnalysisFunction function, StateBackend backend, OperatorSubtaskState restore) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(function), new FlowKeySelector(), Types.STRING);
        if (backend != null) {
            harness.setStateBackend(backend);
        }
        if (restore != null) {
            harness.initializeState(restore);
        }
        harness.open();
        return harness;
    }

    private static void feed(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness, List<PacketEvent> packets)
            throws Exception {
        for (PacketEvent p : packets) {
            harness.processElement(FlowBatches.ofEvent(p), p.getCaptureTimeNs() / 1_000_000);
        }
    }

    /** The flow_summary rows of the final versions, in order. */
    private static List<FlowRow> finalRows(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness) {
        return harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS).stream()
                .map(StreamRecord::getValue)
                .filter(r -> r.finalRecord)
                .toList();
    }

    /** The record times of the flow_summary rows so far, in order (none when the side output has none). */
    private static List<Long> rowTimes(KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness) {
        var rows = harness.getSideOutput(FlowAnalysisFunction.FLOW_ROWS);
        return rows == null
                ? List.of()
                : rows.stream().map(r -> r.getValue().recordTimeUs).toList();
    }

    /** A row's value of a flow-scope text column. */
    private static String text(FlowRow row, FlowField field) {
        return row.texts[FlowRowLayout.INSTANCE.slot(field, FlowField.Side.C2S)];
    }

    /** A row's value of an integer column of one direction. */
    private static long integer(FlowRow row, FlowField field, FlowField.Side side) {
        return row.integers[FlowRowLayout.INSTANCE.slot(field, side)];
    }

    private static List<FlowSummary> finals(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness) {
        return harness.extractOutputValues().stream().filter(s -> s.finalRecord).toList();
    }

    /** SYN, SYN-ACK, ACK from client port {@code port} to 10.0.0.2:443, 1 ms apart. */
    private static void handshake(
            KeyedOneInputStreamOperatorTestHarness<String, FlowBatch, FlowSummary> harness, int port, long isn, long t)
            throws Exception {
        harness.processElement(event(t, true, port, DecodedPacket.SYN, isn, 0), t / 1_000_000);
        harness.processElement(
                event(t + 1_000_000, false, port, DecodedPacket.SYN | DecodedPacket.ACK, 5000, isn + 1),
                (t + 1_000_000) / 1_000_000);
        harness.processElement(
                event(t + 2_000_000, true, port, DecodedPacket.ACK, isn + 1, 5001), (t + 2_000_000) / 1_000_000);
    }

    private static FlowBatch event(long t, boolean fromClient, int port, int flags, long seq, long ack) {
        return FlowBatches.ofEvent(packet(t, fromClient, port, flags, seq, ack));
    }

    private static FlowBatch event(long t, boolean fromClient, int port, int flags, long seq, long ack, int payload) {
        return FlowBatches.ofEvent(packet(t, fromClient, port, flags, seq, ack, payload));
    }

    private static PacketEvent packet(long t, boolean fromClient, int port, int flags, long seq, long ack) {
        return packet(t, fromClient, port, flags, seq, ack, 0);
    }

    private static PacketEvent packet(
            long t, boolean fromClient, int port, int flags, long seq, long ack, int payload) {
        byte[] client = {10, 0, 0, 1};
        byte[] server = {10, 0, 0, 2};
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(t)
                .setVantage(VANTAGE)
                .setLinkType(1)
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(fromClient ? client : server))
                .setDstAddr(ByteBuffer.wrap(fromClient ? server : client))
                .setSrcPort(fromClient ? port : 443)
                .setDstPort(fromClient ? 443 : port)
                .setIpId(1)
                .setTtl(64)
                .setIpTotalLength(40 + payload)
                .setTcpFlags(flags)
                .setSeq(seq)
                .setAck(ack)
                .setWindow(65535)
                .setPayloadLength(payload)
                .setCapturedLength(54)
                .setWireLength(54 + payload)
                .build();
    }
}
