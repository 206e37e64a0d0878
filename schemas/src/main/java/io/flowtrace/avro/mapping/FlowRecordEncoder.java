package io.flowtrace.avro.mapping;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowValues;
import io.flowtrace.report.ReportVisitor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The Kafka flows value of one version, written straight from a {@link io.flowtrace.report.FlowReport}
 * walk with Avro's {@link BinaryEncoder}, without a {@link FlowRecord}: the bytes are the ones
 * {@code SpecificDatumWriter} writes for the record {@link ReportToAvro} fills from the same walk
 * (FlowRecordEncoderTest, on every flow of captures at many points of their lives), under the same
 * value rules (docs/schemas.md). Hand-written over Avro's encoder for a measured reason: filling the
 * generated record (the walk's boxing into dozens of nested objects) and encoding it again were the
 * largest share of the job's flow task on short connections (docs/BENCHMARKS.md, "The flow task after
 * the one-walk decode").
 *
 * <p>The walk hands its values in a fixed order (FlowReport: the flow fields, then the direction
 * fields for c2s and for s2c), the schema wants them in its own; each walk position lands in the
 * contract leaf {@link FlowRecordPlan} gives it, typed, and {@link #value()} writes the leaves in
 * schema order. The same typed leaves answer {@link FlowValues}, as {@link AvroFlowValues} answers
 * for the record, so the job's windows and keys read this version without decoding it.
 *
 * <p>One encoder per thread, reused version after version ({@link #reset} is called by {@link
 * FlowRecords#encode}).
 */
public final class FlowRecordEncoder implements ReportVisitor, FlowValues {
    private static final byte[] HEADER = SingleObjectCodec.header(FlowRecord.getClassSchema());

    private final FlowRecordPlan plan = FlowRecordPlan.INSTANCE;
    /** Per leaf: LONG, INT, BOOLEAN (0/1) and ENUM (ordinal) values. */
    private final long[] longs = new long[plan.leaves()];
    /** Per leaf: DOUBLE and FLOAT values. */
    private final double[] doubles = new double[plan.leaves()];
    /** Per leaf: STRING (String) and ARRAY (long[]) values. */
    private final Object[] refs = new Object[plan.leaves()];
    /** Per leaf: the null branch of a nullable field. */
    private final boolean[] nulls = new boolean[plan.leaves()];

    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;
    private int position;

    /** Every leaf as a new {@link FlowRecord}'s constructor leaves it: Java's zero, nullable fields null. */
    void reset() {
        Arrays.fill(longs, 0);
        Arrays.fill(doubles, 0);
        Arrays.fill(refs, null);
        plan.initialNulls(nulls);
        position = 0;
    }

    /** Fields the walk does not carry: the vantage record (a string in the report) and the record time. */
    void finish(VantagePoint vantage, long recordTimeUs) {
        if (position != plan.positions()) {
            throw new IllegalStateException(
                    "the walk gave " + position + " values, the contract plan expects " + plan.positions());
        }
        refs[plan.agentId()] = vantage.agentId();
        refs[plan.interfaceName()] = vantage.interfaceName();
        longs[plan.recordTime()] = recordTimeUs;
    }

    /** The single-object encoded value (docs/schemas.md): header, then the datum in schema order; a new array. */
    public byte[] value() {
        buffer.reset();
        buffer.write(HEADER, 0, HEADER.length);
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
        try {
            for (int i = 0; i < longs.length; i++) {
                write(i);
            }
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a FlowRecord", e); // writing to memory: not an I/O failure
        }
        return buffer.toByteArray();
    }

    private void write(int leaf) throws IOException {
        FlowRecordPlan.Leaf l = plan.leaf(leaf);
        if (l.nullIndex() >= 0) {
            if (nulls[leaf]) {
                encoder.writeIndex(l.nullIndex());
                return;
            }
            encoder.writeIndex(l.valueIndex());
        }
        switch (l.type()) {
            case LONG -> encoder.writeLong(longs[leaf]);
            case INT -> encoder.writeInt((int) longs[leaf]);
            case BOOLEAN -> encoder.writeBoolean(longs[leaf] != 0);
            case ENUM -> encoder.writeEnum((int) longs[leaf]);
            case DOUBLE -> encoder.writeDouble(doubles[leaf]);
            case FLOAT -> encoder.writeFloat((float) doubles[leaf]);
            case STRING -> encoder.writeString((String) required(leaf));
            case ARRAY -> {
                long[] items = (long[]) required(leaf);
                encoder.writeArrayStart();
                encoder.setItemCount(items.length);
                for (long item : items) {
                    encoder.startItem();
                    encoder.writeLong(item);
                }
                encoder.writeArrayEnd();
            }
            default -> throw new IllegalStateException("unplanned type " + l.type()); // FlowRecordPlan refuses it
        }
    }

    /** A non-nullable reference leaf must have been set: the record's encoder fails on its null too. */
    private Object required(int leaf) {
        Object v = refs[leaf];
        if (v == null) {
            throw new AvroRuntimeException("contract field " + plan.leaf(leaf).path() + " was not set by the walk");
        }
        return v;
    }

    // ---- the walk ----

    @Override
    public void beginObject(String name) {}

    @Override
    public void endObject() {}

    @Override
    public void string(String name, String value) {
        int leaf = next(name);
        if (leaf < 0) {
            return;
        }
        if (value == null) {
            setNull(leaf, value);
        } else if (plan.leaf(leaf).type() == Schema.Type.ENUM) {
            longs[leaf] = plan.leaf(leaf).ordinal(value);
            nulls[leaf] = false;
        } else {
            refs[leaf] = value;
            nulls[leaf] = false;
        }
    }

    @Override
    public void integer(String name, long value) {
        int leaf = next(name);
        if (leaf < 0) {
            return;
        }
        if (value < 0 && plan.leaf(leaf).nullIndex() >= 0) {
            nulls[leaf] = true; // "absent" (the report's -1 for an MSS never announced)
            return;
        }
        setNumber(leaf, value, value);
    }

    @Override
    public void decimal(String name, double value) {
        int leaf = next(name);
        if (leaf < 0) {
            return;
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            setNull(leaf, null); // "no samples": null, or 0 in a field that is not nullable
            return;
        }
        setNumber(leaf, Math.round(value), value);
    }

    /** A number into a numeric leaf: {@code whole} into a long or int field, {@code exact} into a double or float. */
    private void setNumber(int leaf, long whole, double exact) {
        FlowRecordPlan.Leaf l = plan.leaf(leaf);
        nulls[leaf] = false;
        switch (l.type()) {
            case LONG -> longs[leaf] = whole;
            case INT -> longs[leaf] = toInt(l, whole);
            case DOUBLE -> doubles[leaf] = exact;
            case FLOAT -> doubles[leaf] = (float) exact;
            default -> throw new IllegalStateException("unplanned " + l.path()); // FlowRecordPlan refuses it
        }
    }

    @Override
    public void bool(String name, boolean value) {
        int leaf = next(name);
        if (leaf >= 0) {
            longs[leaf] = value ? 1 : 0;
            nulls[leaf] = false;
        }
    }

    @Override
    public void integers(String name, long[] values, int count) {
        int leaf = next(name);
        if (leaf >= 0) {
            refs[leaf] = Arrays.copyOf(values, count);
            nulls[leaf] = false;
        }
    }

    /** The leaf of the walk's next value, or -1 when the contract does not hold it (report-only, vantage). */
    private int next(String name) {
        int at = position++;
        if (at >= plan.positions() || !plan.nameAt(at).equals(name)) {
            throw new IllegalStateException("walk value " + at + " is " + name + ", the contract plan expects "
                    + (at < plan.positions() ? plan.nameAt(at) : "no more values"));
        }
        return plan.leafAt(at);
    }

    /** A null value: null in a nullable field, Java's zero in a numeric or boolean one (as ReportToAvro). */
    private void setNull(int leaf, Object value) {
        FlowRecordPlan.Leaf l = plan.leaf(leaf);
        if (l.nullIndex() >= 0) {
            nulls[leaf] = true;
            return;
        }
        switch (l.type()) {
            case LONG, INT, BOOLEAN -> longs[leaf] = 0;
            case DOUBLE, FLOAT -> doubles[leaf] = 0;
            default ->
                throw new AvroRuntimeException(
                        "report field " + l.path() + " = " + value + " does not fit non-nullable " + l.type());
        }
    }

    private static long toInt(FlowRecordPlan.Leaf l, long value) {
        try {
            return Math.toIntExact(value);
        } catch (ArithmeticException e) {
            throw new AvroRuntimeException("report field " + l.path() + " = " + value + " does not fit an int", e);
        }
    }

    // ---- the typed values ----

    /**
     * The value of a catalogue field in this version, as {@link AvroFlowValues} reads it from the
     * record: the Avro value's boxed type, enums as their lower-case report names, the vantage as
     * {@code agent/interface}, arrays as long[]; null when absent or report-only.
     */
    @Override
    public Object value(FlowField field, FlowField.Side side) {
        if (field == FlowFields.VANTAGE) {
            return VantagePoint.text((String) refs[plan.agentId()], (String) refs[plan.interfaceName()]);
        }
        int leaf = plan.leafOf(field, side);
        if (leaf < 0 || nulls[leaf]) {
            return null;
        }
        FlowRecordPlan.Leaf l = plan.leaf(leaf);
        return switch (l.type()) {
            case LONG -> longs[leaf];
            case INT -> (int) longs[leaf];
            case BOOLEAN -> longs[leaf] != 0;
            case ENUM -> l.reportName((int) longs[leaf]);
            case DOUBLE -> doubles[leaf];
            case FLOAT -> (float) doubles[leaf];
            case ARRAY -> ((long[]) refs[leaf]).clone();
            default -> refs[leaf];
        };
    }
}
