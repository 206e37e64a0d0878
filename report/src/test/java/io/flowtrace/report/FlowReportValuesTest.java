package io.flowtrace.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.testing.FlatReport;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The typed accessor of an analysed flow ({@link FlowReport#values}, what analyze's table, --sort
 * and -l read) gives, for every catalogue field and side, the value the report walk writes: absent
 * (null) exactly where the walk writes a nullable integer as absent (-1 here) or a decimal as NaN.
 */
class FlowReportValuesTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/cubic-loss.sender.pcap.gz",
                "tcp/zero-window.receiver.pcap.gz",
                "tcp/short-conns.sender.pcap.gz"
            })
    void everyFieldReadsAsTheReportWritesIt(String capture) throws Exception {
        AtomicInteger flows = new AtomicInteger();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlatReport walk = new FlatReport();
                        FlowReport.visit(key, instance, flow, walk);
                        FlowValues values = FlowReport.values(key, instance, flow);
                        for (FlowField f : FlowFields.all()) {
                            for (FlowField.Side side : FlowField.Side.values()) {
                                String path = f.jsonPaths().get(f.jsonPaths().size() == 1 ? 0 : side.ordinal());
                                assertThat(typed(values.value(f, side), f))
                                        .as("%s of %s", path, flow.client())
                                        .isEqualTo(walk.fields.get(path));
                            }
                        }
                        flows.incrementAndGet();
                    },
                    (key, instance) -> e -> {},
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        assertThat(flows.get()).as("flows analysed in %s", capture).isPositive();
    }

    /** A value as FlatReport records the walk's: absent as -1 (integers) or NaN (decimals), lists as text. */
    private static Object typed(Object value, FlowField f) {
        if (value == null) {
            return f.kind() == FlowField.Kind.DECIMAL ? (Object) Double.NaN : (Object) (-1L);
        }
        return value instanceof long[] list ? Arrays.toString(list) : value;
    }
}
