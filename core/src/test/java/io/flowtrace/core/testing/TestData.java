package io.flowtrace.core.testing;

import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the repository's committed captures (testdata/) from any module's working directory, and analyses one. */
public final class TestData {
    private TestData() {}

    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path candidate = dir.resolve("testdata");
            if (Files.isDirectory(candidate) && Files.exists(dir.resolve("pom.xml"))) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "testdata/ not found above " + Path.of("").toAbsolutePath());
    }

    public static Path file(String relative) {
        return root().resolve(relative);
    }

    /**
     * Analyses a committed capture offline as {@code analyze} does (default tunables, vantage
     * test/ifN for pcapng interface N), telling {@code flows} of each flow as it ends.
     */
    public static void analyse(String relative, FlowTracker.FlowListener flows) throws IOException {
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(file(relative))) {
            analysis.run(in, flows, TcpEventSinkFactory.NONE, CaptureErrorListener.IGNORE, n -> {});
        }
    }
}
