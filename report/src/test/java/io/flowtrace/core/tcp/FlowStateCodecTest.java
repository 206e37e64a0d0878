package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.flow.InstanceIdentity;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.FlatReport;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowReport;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot and restore must be invisible: analysing a real capture while serialising and
 * restoring every flow's state after every few packets (what a Flink checkpoint, a RocksDB
 * access or a savepoint restore does) gives exactly the report of an uninterrupted analysis.
 */
class FlowStateCodecTest {

    @ParameterizedTest
    @ValueSource(strings = {"decoding/tcp4-sack.pcap", "decoding/tcp6-sack.pcap", "decoding/tcp4-snap64.pcap"})
    void restoringStateMidFlowChangesNothing(String capture) throws Exception {
        List<Map<String, Object>> plain = analyse(capture, Integer.MAX_VALUE);
        List<Map<String, Object>> restored = analyse(capture, 7);
        assertThat(plain).isNotEmpty();
        assertThat(restored).isEqualTo(plain);
    }

    @ParameterizedTest
    @ValueSource(strings = {"decoding/tcp4-sack.pcap"})
    void anIdleFlowCostsLessThanOneKibibyteOfSerialisedState(String capture) throws Exception {
        List<TcpFlowAnalyzer> flows = new ArrayList<>();
        run(capture, Integer.MAX_VALUE, flows);
        for (TcpFlowAnalyzer f : flows) {
            assertThat(FlowStateCodec.toBytes(f).length).isLessThan(1024);
        }
    }

    /**
     * A writer of {@code version} wrote exactly today's layout without the fields appended since
     * (version 2's slow-start state, 3's growth bound and stuck-window rule, 4's HyStart refutation,
     * 5's delivery-rate send phase): it still reads, and what it held is what today's state holds.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void readsStateOfEveryOlderVersion(int version) throws Exception {
        List<TcpFlowAnalyzer> flows = new ArrayList<>();
        run("decoding/tcp4-sack.pcap", Integer.MAX_VALUE, flows);
        TcpFlowAnalyzer f = flows.get(0);
        AppendedFields since = switch (version) {
            case 1 -> out -> FlowStateCodec.writeVersion2Fields(f, out);
            case 2 -> out -> FlowStateCodec.writeVersion3Fields(f, out);
            case 3 -> out -> FlowStateCodec.writeVersion4Fields(f, out);
            default -> out -> FlowStateCodec.writeVersion5Fields(f, out);
        };
        TcpFlowAnalyzer restored = restoredAs(f, version, since);
        assertThat(restored.clientToServer().packets).isEqualTo(f.clientToServer().packets);
        assertThat(restored.serverToClient().dataBytes).isEqualTo(f.serverToClient().dataBytes);
        assertThat(restored.slowStart(true).exitReason).isEqualTo(f.slowStart(true).exitReason);
        assertThat(restored.slowStart(true).maxDeliveryRateBytesPerSecond)
                .isEqualTo(f.slowStart(true).maxDeliveryRateBytesPerSecond);
        if (version >= 2) {
            assertThat(restored.slowStart(true).cwndStuckRounds).isEqualTo(f.slowStart(true).cwndStuckRounds);
        }
    }

    /** The fields a newer version appends after an older one's. */
    private interface AppendedFields {
        void write(java.io.DataOutput out) throws java.io.IOException;
    }

    /** The flow's state as a writer of {@code version} wrote it: today's bytes without the fields appended since. */
    private static TcpFlowAnalyzer restoredAs(TcpFlowAnalyzer f, int version, AppendedFields since) throws Exception {
        byte[] now = FlowStateCodec.toBytes(f);
        java.io.ByteArrayOutputStream extra = new java.io.ByteArrayOutputStream();
        since.write(new java.io.DataOutputStream(extra));
        byte[] old = java.util.Arrays.copyOf(now, now.length - extra.size());
        old[0] = (byte) version;
        return FlowStateCodec.fromBytes(old, AnalyzerConfig.DEFAULTS);
    }

    @org.junit.jupiter.api.Test
    void refusesAnUnknownStateVersion() {
        assertThatThrownBy(() -> FlowStateCodec.fromBytes(new byte[] {99, 0, 0}, AnalyzerConfig.DEFAULTS))
                .hasMessageContaining("unknown flow state version 99");
    }

    private static List<Map<String, Object>> analyse(String capture, int restoreEvery) throws Exception {
        List<TcpFlowAnalyzer> flows = new ArrayList<>();
        run(capture, restoreEvery, flows);
        List<Map<String, Object>> out = new ArrayList<>();
        for (TcpFlowAnalyzer f : flows) {
            FlatReport r = new FlatReport();
            FlowReport.visit(new FlowKey(new VantagePoint("test", "if0"), f.client(), f.server()), 0, f, r);
            out.add(r.fields);
        }
        return out;
    }

    /** One analyser per 4-tuple (these captures have no port reuse), restored through the codec every N packets. */
    private static void run(String capture, int restoreEvery, List<TcpFlowAnalyzer> flows) throws Exception {
        java.util.Map<String, TcpFlowAnalyzer> byKey = new java.util.LinkedHashMap<>();
        java.util.Map<String, Integer> counts = new java.util.HashMap<>();
        try (InputStream in = Files.newInputStream(TestData.file(capture));
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                InstanceIdentity.Roles roles = InstanceIdentity.roles(p);
                String key = roles.client().compareTo(roles.server()) < 0
                        ? roles.client() + "|" + roles.server()
                        : roles.server() + "|" + roles.client();
                TcpFlowAnalyzer f = byKey.computeIfAbsent(
                        key,
                        k -> new TcpFlowAnalyzer(
                                roles.client(), roles.server(), roles.guessed(), AnalyzerConfig.DEFAULTS));
                f.onPacket(p, TcpEventSink.NONE);
                int n = counts.merge(key, 1, Integer::sum);
                if (n % restoreEvery == 0) {
                    byKey.put(key, FlowStateCodec.fromBytes(FlowStateCodec.toBytes(f), AnalyzerConfig.DEFAULTS));
                }
            }
        }
        flows.addAll(byKey.values());
    }
}
