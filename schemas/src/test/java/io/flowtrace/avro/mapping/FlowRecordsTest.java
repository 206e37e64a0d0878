package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportJson;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FlowRecords.of fills an empty record instead of one built from the schema's defaults: on real
 * captures its encoded bytes equal those of a record built the old way (the builder's defaults,
 * then the same walk), so the topic and the columns cannot tell the two apart.
 */
class FlowRecordsTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/cubic-loss.sender.pcap.gz",
                "tcp/zero-window.receiver.pcap.gz",
                "tcp/short-http.sender.pcap.gz",
                "tcp/midstream.sender.pcap.gz"
            })
    void anEmptyRecordFilledByTheWalkEncodesAsOneBuiltFromTheDefaults(String capture) throws Exception {
        List<byte[][]> pairs = new ArrayList<>();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlowRecord fromDefaults = FlowRecord.newBuilder().build();
                        FlowReport.visit(key, instance, flow, new ReportToAvro(fromDefaults));
                        fromDefaults.getFlow().setVantage(PacketEvents.toAvro(key.vantage()));
                        fromDefaults.setRecordTimeUs(7L);
                        try {
                            pairs.add(new byte[][] {
                                FlowRecords.of(key, instance, flow, 7L)
                                        .toByteBuffer()
                                        .array(),
                                fromDefaults.toByteBuffer().array()
                            });
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        assertThat(pairs).isNotEmpty();
        for (byte[][] p : pairs) {
            assertThat(p[0]).isEqualTo(p[1]);
        }
    }
    /**
     * The job's version (record and JSON text from one walk, {@link FlowRecords#version}) against two
     * separate walks: the record's encoded bytes equal {@link FlowRecords#of}'s and the text equals
     * {@link ReportJson#of}'s, flow by flow, on real captures.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/cubic-loss.sender.pcap.gz",
                "tcp/zero-window.receiver.pcap.gz",
                "tcp/short-http.sender.pcap.gz",
                "tcp/midstream.sender.pcap.gz",
                "join/client.pcap"
            })
    void oneWalkGivesTheRecordAndTheJsonOfTwoSeparateWalks(String capture) throws Exception {
        List<String[]> pairs = new ArrayList<>();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlowRecords.Version one = FlowRecords.version(key, instance, flow, 7L, true);
                        FlowRecords.Version noJson = FlowRecords.version(key, instance, flow, 7L, false);
                        try {
                            pairs.add(new String[] {
                                hex(one.record().toByteBuffer().array()),
                                hex(FlowRecords.of(key, instance, flow, 7L)
                                        .toByteBuffer()
                                        .array()),
                                one.reportJson(),
                                ReportJson.of(key, instance, flow),
                                hex(noJson.record().toByteBuffer().array()),
                                String.valueOf(noJson.reportJson())
                            });
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        assertThat(pairs).isNotEmpty();
        for (String[] p : pairs) {
            assertThat(p[0]).isEqualTo(p[1]).isEqualTo(p[4]);
            assertThat(p[2]).startsWith("{").isEqualTo(p[3]);
            assertThat(p[5]).isEqualTo("null");
        }
    }

    private static String hex(byte[] bytes) {
        return java.util.HexFormat.of().formatHex(bytes);
    }
}
