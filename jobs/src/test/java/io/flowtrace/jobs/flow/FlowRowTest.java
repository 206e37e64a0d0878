package io.flowtrace.jobs.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.AvroFlowValues;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.ReportJson;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The typed flow_summary row holds, column by column, the value the job wrote when it read the
 * columns from the flow's Avro record by path (AvroFlowValues, the FlowSummaryColumns before the
 * rows): the rows change no byte of the table. Captures with absent values (no handshake, no RTT
 * samples, no slow-start exit), retransmissions of every class, resets and short connections.
 */
class FlowRowTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "join/client.pcap",
                "decoding/tcp4-sack.pcap",
                "decoding/tcp4-2if-mixres.pcapng",
                "decoding/tcp4-truncated.pcap",
                "tcp/cubic-loss.sender.pcap.gz"
            })
    void everyColumnHoldsTheValueOfTheRecord(String capture) throws Exception {
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("lab", "if" + iface));
        int[] flows = {0};
        try (InputStream file = Files.newInputStream(TestData.file(capture));
                InputStream in = capture.endsWith(".gz") ? new GZIPInputStream(file) : file) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlowRowWriter writer = new FlowRowWriter(FlowRowLayout.INSTANCE);
                        FlowRecords.Version v = FlowRecords.version(key, instance, flow, 7_000L, true, writer);
                        FlowRow row = writer.row(v.reportJson(), 2, 7_000L, true);
                        assertThat(v.record()).isEqualTo(FlowRecords.of(key, instance, flow, 7_000L));
                        assertThat(row.reportJson).isEqualTo(ReportJson.of(key, instance, flow));
                        assertRowIsTheRecord(row, v.record());
                        flows[0]++;
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        assertThat(flows[0]).isPositive();
    }

    private static void assertRowIsTheRecord(FlowRow row, FlowRecord record) {
        AvroFlowValues avro = new AvroFlowValues(record);
        FlowRowLayout layout = FlowRowLayout.INSTANCE;
        for (FlowField f : FlowFields.all()) {
            FlowField.Column c = f.column();
            if (c == null) {
                continue;
            }
            FlowRowLayout.Kind kind = layout.kind(f);
            for (int i = 0; i < c.names().size(); i++) {
                FlowField.Side side = FlowField.Side.values()[i];
                Object expected = c.columns() == FlowField.Columns.SUM_OF_DIRECTIONS
                        ? (Object) FlowFields.bothDirections(avro, f)
                        : avro.value(f, side);
                int slot = layout.slot(f, side);
                Object actual = switch (kind) {
                    case TEXT -> row.texts[slot];
                    case FLAG -> row.flags[slot];
                    case DECIMAL -> Double.isNaN(row.decimals[slot]) ? null : row.decimals[slot];
                    case INTEGER -> row.nullIntegers[slot] ? null : row.integers[slot];
                };
                if (expected instanceof Number n && actual != null) {
                    expected = kind == FlowRowLayout.Kind.DECIMAL ? (Object) n.doubleValue() : (Object) n.longValue();
                }
                assertThat(actual)
                        .as(c.names().get(i) + " of " + record.getFlow())
                        .isEqualTo(expected);
            }
        }
    }
}
