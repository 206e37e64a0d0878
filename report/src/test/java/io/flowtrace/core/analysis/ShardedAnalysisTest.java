package io.flowtrace.core.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.LinkType;
import io.flowtrace.core.pcap.PcapWriter;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.FlatReport;
import io.flowtrace.core.testing.Frames;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowReport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flows sharded over several analysing threads give exactly what one thread gives: the same flow
 * reports, the same events, every call in the same order, on committed captures (port reuse,
 * IPv6, two interfaces, many short connections) and on a synthetic SYN flood whose half-open flows
 * expire by the thousand in each sweep.
 */
class ShardedAnalysisTest {
    private static final AnalyzerConfig SHORT_TIMEOUTS =
            AnalyzerConfig.DEFAULTS.withIdleTimeouts(1_000_000_000L, 500_000_000L);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/short-conns.sender.pcap.gz", // 240 connections, client ports reused (testdata/tcp/README.md)
                "tcp/short-http.receiver.pcap.gz",
                "tcp/ipv6-loss.sender.pcap.gz",
                "tcp/cubic-loss.receiver.pcap.gz",
                "tcp/zero-window.sender.pcap.gz",
                "decoding/tcp4-2if.pcapng", // two interfaces: the same tuple on each is two flows
                "decoding/raw-ip.pcap", // IPv4 and IPv6 connections
                "decoding/tcp4-truncated.pcap"
            })
    void shardsReportWhatOneThreadReports(String capture) throws IOException {
        byte[] bytes = Files.readAllBytes(TestData.file(capture));
        for (AnalyzerConfig config : List.of(AnalyzerConfig.DEFAULTS, SHORT_TIMEOUTS)) {
            List<String> single = calls(bytes, config, 1);
            assertThat(single).as("%s: something to compare", capture).isNotEmpty();
            for (int threads : new int[] {2, 3, 8}) {
                assertThat(calls(bytes, config, threads))
                        .as("%s with %d threads, idle timeout %d ns", capture, threads, config.idleTimeoutNanos())
                        .containsExactlyElementsOf(single);
            }
        }
    }

    @Test
    void aSynFloodExpiresInTheSameOrderWhateverTheThreads() throws IOException {
        byte[] flood = synFlood(10_000, 300_000L); // 3,333 SYNs/s for 3 s: half-open flows expire 0.5 s on
        List<String> single = calls(flood, SHORT_TIMEOUTS, 1);
        // every SYN is its own flow, each reported once (a few random tuples may repeat)
        assertThat(single.stream().filter(c -> c.startsWith("flow ")).count()).isBetween(9_900L, 10_000L);
        for (int threads : new int[] {2, 5}) {
            assertThat(calls(flood, SHORT_TIMEOUTS, threads)).containsExactlyElementsOf(single);
        }
    }

    /** Every listener and event-sink call of one run, in order, each flow with its whole report. */
    private static List<String> calls(byte[] capture, AnalyzerConfig config, int threads) throws IOException {
        List<String> calls = new ArrayList<>();
        TcpEventSinkFactory events = (key, instance) -> {
            calls.add("sink " + key.canonical() + " " + instance);
            return e -> calls.add("event " + key.canonical() + " " + instance + " " + e);
        };
        CaptureSummary summary;
        try (InputStream in = new ByteArrayInputStream(capture)) {
            summary = new CaptureAnalysis(config, i -> new VantagePoint("test", "if" + i), threads)
                    .run(
                            in,
                            (key, instance, flow) -> {
                                FlatReport r = new FlatReport();
                                FlowReport.visit(key, instance, flow, r);
                                calls.add("flow " + key.canonical() + " " + instance + " " + r.fields);
                            },
                            events,
                            CaptureErrorListener.IGNORE,
                            n -> {});
        }
        calls.add("summary flows=" + summary.flows + " records=" + summary.records + " tcp=" + summary.tcpPackets());
        return calls;
    }

    /** Raw-IP pcap of {@code syns} SYNs from random sources to one server, {@code stepNanos} apart. */
    private static byte[] synFlood(int syns, long stepNanos) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SplittableRandom rnd = new SplittableRandom(11);
        byte[] server = {10, 0, 0, 2};
        try (PcapWriter w = new PcapWriter(out, LinkType.RAW, 65535)) {
            for (int i = 0; i < syns; i++) {
                byte[] src = ByteBuffer.allocate(4)
                        .putInt(0x0b000000 | rnd.nextInt(1 << 24))
                        .array();
                byte[] tcp = Frames.tcp(
                        1024 + rnd.nextInt(60000), 443, rnd.nextLong(1L << 32), 0, 0x02, 65535, new byte[0], 0);
                byte[] ip = Frames.ipv4(src, server, i & 0xffff, tcp);
                w.write(1_000_000_000L + i * stepNanos, ip, 0, ip.length, ip.length);
            }
        }
        return out.toByteArray();
    }
}
