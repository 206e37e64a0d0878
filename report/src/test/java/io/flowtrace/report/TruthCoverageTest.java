package io.flowtrace.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every field of the report is read by a truth test (a test comparing it with the kernel, tshark,
 * tcptrace, two captures or a hand calculation) or sits on the reasoned list below. A field "is read"
 * when a truth test's source names its report path as a string (a per-direction field by either
 * side, {@code "c2s.dsacks"} or {@code "s2c.dsacks"}, or by its tail after a side variable,
 * {@code side + ".dsacks"}).
 */
class TruthCoverageTest {

    /** Fields no truth test reads yet, each with why. Shrink it; never grow it without a reason. */
    static final Map<String, String> UNASSERTED = new LinkedHashMap<>();

    static {
        UNASSERTED.put(
                "flow.vantage",
                "the name the caller gives the capture point (CaptureAnalysis's vantage function), not a measurement");
        UNASSERTED.put(
                "network_duplicates",
                "0 on every committed capture (the lab's router does not duplicate, so there is no truth to"
                        + " compare but 0); TcpFlowAnalyzerTest and TcpEdgeCasesTest build duplicates by hand");
        UNASSERTED.put(
                "state_overflows",
                "needs more than 2^15 unacknowledged segments in one direction; no capture has them");
        UNASSERTED.put(
                "acked_unseen",
                "0 wherever the capture holds the handshake; only a capture that starts mid-flow (midstream)"
                        + " has some, and no tool here counts ACKed-but-unseen bytes to compare with");
        UNASSERTED.put(
                "rtt_us.samples",
                "tcptrace counts samples by its own rules (no SACK, no Karn on SACKed data): next step, a"
                        + " tcp_probe-based count in KernelSeriesTruthTest");
        UNASSERTED.put("rtt_us.max", "as rtt_us.samples: tcptrace's RTT max counts samples Karn's rule forbids");
        UNASSERTED.put("rtt_us.stdev", "as rtt_us.samples");
        UNASSERTED.put(
                "ts_rtt_us.samples",
                "the captures' tshark fields lack tcp.options.timestamp.tsval/tsecr; next step: add them to"
                        + " scripts/lab/tcpcase.sh and compute pping's rule from the rows");
        UNASSERTED.put("ts_rtt_us.min", "as ts_rtt_us.samples");
        UNASSERTED.put("ts_rtt_us.avg", "as ts_rtt_us.samples");
        UNASSERTED.put("ts_rtt_us.max", "as ts_rtt_us.samples");
    }

    private static String truthSources() throws IOException {
        Path tests = TestData.root().resolveSibling("report").resolve("src/test/java");
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(tests)) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith("TruthTest.java"))
                    .toList()) {
                all.append(Files.readString(p));
            }
        }
        return all.toString();
    }

    private static boolean read(String source, String path, boolean perDirection) {
        if (!perDirection) {
            return source.contains("\"" + path + "\"");
        }
        return source.contains("\"c2s." + path + "\"")
                || source.contains("\"s2c." + path + "\"")
                || source.contains("\"." + path + "\"");
    }

    @Test
    void everyReportFieldIsReadByATruthTestOrListedWithAReason() throws IOException {
        String source = truthSources();
        assertThat(source).as("the truth tests' sources").contains("CaptureRun");
        List<String> unread = new ArrayList<>();
        FlowFields.FLOW.forEach(f -> {
            if (!read(source, f.path(), false)) {
                unread.add(f.path());
            }
        });
        FlowFields.DIRECTION.forEach(f -> {
            if (!read(source, f.path(), true)) {
                unread.add(f.path());
            }
        });
        assertThat(unread)
                .as("fields no truth test reads and the list does not name")
                .containsExactlyInAnyOrderElementsOf(UNASSERTED.keySet());
    }
}
