package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportVisitor;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka flows record's bytes, as the job writes them ({@link FlowRecords#version}, then the
 * shared {@link SingleObjectCodec}), against two references on every flow of real captures: Avro's
 * {@code SpecificDatumWriter} on the same record, and a {@code GenericData.Record} filled from the
 * same catalogue walk by {@link GenericReference} below (the value rules of docs/schemas.md written
 * again over Avro's generic API, by field name, with no plan or cache) and written by Avro's
 * {@code GenericDatumWriter}. The three must be the same bytes.
 */
class FlowRecordBytesTest {
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
    void theJobsBytesEqualAvrosWritersOnEveryFlowOfACapture(String capture) throws Exception {
        SingleObjectCodec<FlowRecord> codec = SingleObjectCodec.of(FlowRecord.class);
        List<byte[][]> triples = new ArrayList<>();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("test", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        FlowRecord record = FlowRecords.version(key, instance, flow, 7L, false)
                                .record();
                        GenericData.Record reference = new GenericReference().fill(key, instance, flow);
                        reference.put("record_time_us", 7L);
                        triples.add(new byte[][] {
                            codec.encode(record),
                            withHeader(new SpecificDatumWriter<>(FlowRecord.class), record),
                            withHeader(new GenericDatumWriter<>(FlowRecord.getClassSchema()), reference)
                        });
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        assertThat(triples).isNotEmpty();
        for (byte[][] t : triples) {
            assertThat(t[0]).hasSizeGreaterThan(HEADER.length + 100);
            assertThat(t[0]).isEqualTo(t[1]).isEqualTo(t[2]);
        }
    }

    private static <T> byte[] withHeader(org.apache.avro.io.DatumWriter<T> writer, T datum) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(HEADER);
            BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
            writer.write(datum, e);
            e.flush();
            return out.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A FlowRecord as a generic record, from the walk: each report field into the contract field of
     * the same path (docs/schemas.md), a NaN decimal or a negative integer in a nullable numeric
     * field as null, decimals rounded into long fields, enums as the upper-cased report string (the
     * schema's default when unknown), report-only fields skipped; the vantage record from the key.
     */
    private static final class GenericReference implements ReportVisitor {
        private final Deque<GenericData.Record> open = new ArrayDeque<>();

        GenericData.Record fill(
                io.flowtrace.core.net.FlowKey key, long instance, io.flowtrace.core.tcp.TcpFlowAnalyzer flow) {
            GenericData.Record root = empty(FlowRecord.getClassSchema());
            open.push(root);
            FlowReport.visit(key, instance, flow, this);
            GenericData.Record identity = (GenericData.Record) root.get("flow");
            GenericData.Record vantage =
                    empty(branch(identity.getSchema().getField("vantage").schema()));
            vantage.put("agent_id", key.vantage().agentId());
            vantage.put("interface_name", key.vantage().interfaceName());
            identity.put("vantage", vantage);
            return root;
        }

        /** A record with every field at Java's zero (as a generated class's no-argument constructor). */
        private static GenericData.Record empty(Schema schema) {
            GenericData.Record r = new GenericData.Record(schema);
            for (Schema.Field f : schema.getFields()) {
                r.put(
                        f.pos(),
                        switch (f.schema().getType()) {
                            case LONG -> 0L;
                            case INT -> 0;
                            case DOUBLE -> 0.0;
                            case FLOAT -> 0.0f;
                            case BOOLEAN -> false;
                            default -> null;
                        });
            }
            return r;
        }

        private static Schema branch(Schema s) {
            if (s.getType() != Schema.Type.UNION) {
                return s;
            }
            return s.getTypes().stream()
                    .filter(t -> t.getType() != Schema.Type.NULL)
                    .findFirst()
                    .orElseThrow();
        }

        @Override
        public void beginObject(String name) {
            GenericData.Record parent = open.peek();
            GenericData.Record child = null;
            Schema.Field f = parent == null ? null : parent.getSchema().getField(name);
            if (f != null && branch(f.schema()).getType() == Schema.Type.RECORD) {
                child = (GenericData.Record) parent.get(f.pos());
                if (child == null) {
                    child = empty(branch(f.schema()));
                    parent.put(f.pos(), child);
                }
            }
            open.push(child == null ? NOWHERE : child);
        }

        private static final GenericData.Record NOWHERE =
                new GenericData.Record(Schema.createRecord("Nowhere", null, "test", false, List.of()));

        @Override
        public void endObject() {
            open.pop();
        }

        @Override
        public void string(String name, String value) {
            set(name, value);
        }

        @Override
        public void integer(String name, long value) {
            set(name, value);
        }

        @Override
        public void decimal(String name, double value) {
            set(name, Double.isNaN(value) || Double.isInfinite(value) ? null : value); // "no samples"
        }

        @Override
        public void bool(String name, boolean value) {
            set(name, value);
        }

        @Override
        public void integers(String name, long[] values, int count) {
            List<Long> list = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                list.add(values[i]);
            }
            set(name, list);
        }

        private void set(String name, Object value) {
            GenericData.Record r = open.peek();
            Schema.Field f = r.getSchema().getField(name);
            if (f == null) {
                return; // report-only
            }
            boolean nullable = f.schema().getType() == Schema.Type.UNION;
            Schema t = branch(f.schema());
            Object v;
            boolean numeric = switch (t.getType()) {
                case INT, LONG, FLOAT, DOUBLE -> true;
                default -> false;
            };
            if (value == null) {
                v = nullable
                        ? null
                        : empty(Schema.createRecord("Z", null, "test", false, List.of(new Schema.Field("z", t))))
                                .get(0);
            } else if (nullable && value instanceof Long l && l < 0 && numeric) {
                v = null;
            } else {
                v = switch (t.getType()) {
                    case RECORD -> r.get(f.pos()); // flow.vantage: set from the key
                    case LONG -> value instanceof Double d ? Math.round(d) : value;
                    case INT -> (int) (value instanceof Double d ? Math.round(d) : (Long) value);
                    case DOUBLE -> ((Number) value).doubleValue();
                    case FLOAT -> ((Number) value).floatValue();
                    case ENUM -> {
                        String symbol = value.toString().toUpperCase(Locale.ROOT);
                        yield new GenericData.EnumSymbol(t, t.hasEnumSymbol(symbol) ? symbol : t.getEnumDefault());
                    }
                    default -> value;
                };
            }
            r.put(f.pos(), v);
        }
    }
}
