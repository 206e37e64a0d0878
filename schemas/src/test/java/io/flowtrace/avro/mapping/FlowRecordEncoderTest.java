package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowEnd;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka flows value written straight from the walk ({@link FlowRecordEncoder}) against the bytes
 * Avro's own {@code SpecificDatumWriter} writes for the {@link FlowRecord} the job built before
 * ({@link FlowRecords#version}: {@link ReportToAvro} from the same walk), with the single-object
 * header of docs/schemas.md; and the encoder's typed values against {@link AvroFlowValues} on that
 * record, for every catalogue field and side. On every flow of real captures, not only at their end:
 * the capture is analysed again cut after 1/32, 2/32, ... of its records, so each flow is also seen as an open version part-way through its life,
 * as a periodic update or a close update carries it (an open flow's {@code end} is OPEN there).
 */
class FlowRecordEncoderTest {
    private static final byte[] HEADER = SingleObjectCodec.header(FlowRecord.getClassSchema());

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/cubic-loss.sender.pcap.gz",
                "tcp/zero-window.receiver.pcap.gz",
                "tcp/short-http.sender.pcap.gz",
                "tcp/midstream.sender.pcap.gz",
                "join/client.pcap"
            })
    void theEncodersBytesAndValuesEqualTheRecordsOnEveryFlowAtManyPointsOfACapture(String capture) throws Exception {
        long records = analyse(capture, Long.MAX_VALUE, null);
        assertThat(records).isPositive();
        long step = Math.max(1, records / 32);
        Counts counts = new Counts();
        for (long cut = step; cut < records + step; cut += step) {
            analyse(capture, Math.min(cut, records), counts);
        }
        assertThat(counts.versions).isGreaterThanOrEqualTo(32);
        assertThat(counts.open).as("versions of flows still open at the cut").isPositive();
    }

    private static final class Counts {
        long versions;
        long open;
    }

    /** Analyses the first {@code limit} records; compares every flow when {@code counts} is not null; returns the records read. */
    private static long analyse(String capture, long limit, Counts counts) throws IOException {
        AtomicLong seen = new AtomicLong();
        CaptureRecordFilter firstRecords = r -> seen.incrementAndGet() <= limit;
        FlowRecordEncoder encoder = new FlowRecordEncoder();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    firstRecords,
                    (key, instance, flow) -> {
                        if (counts == null) {
                            return;
                        }
                        long timeUs = 1_000_000L + counts.versions;
                        FlowRecord record = FlowRecords.version(key, instance, flow, timeUs, false)
                                .record();
                        String json = FlowRecords.encode(encoder, key, instance, flow, timeUs, true, null);
                        assertThat(encoder.value())
                                .as("%s at %d records", key, limit)
                                .isEqualTo(avrosBytes(record));
                        assertSameValues(encoder, new AvroFlowValues(record));
                        assertThat(json).isNotEmpty();
                        counts.versions++;
                        if (record.getEnd() == FlowEnd.OPEN) {
                            counts.open++;
                        }
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        return Math.min(seen.get(), limit);
    }

    private static void assertSameValues(FlowRecordEncoder encoded, AvroFlowValues record) {
        for (FlowField f : FlowFields.all()) {
            for (FlowField.Side side : FlowField.Side.values()) {
                Object expected = record.value(f, side);
                Object actual = encoded.value(f, side);
                assertThat(actual).as(f.path() + " " + side).isEqualTo(expected);
                if (expected != null) {
                    assertThat(actual.getClass()).as(f.path()).isEqualTo(expected.getClass());
                }
            }
        }
    }

    /** Avro's own writer on the record, after the single-object header. */
    private static byte[] avrosBytes(FlowRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(HEADER);
            BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<>(FlowRecord.class).write(record, e);
            e.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
