package io.flowtrace.report;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * One field of the flow record, declared once in {@link FlowFields}: where it sits, what it holds,
 * how it is computed, and which outputs carry it. The JSON and text reports carry every field; the
 * rest is declared here.
 *
 * @param path dotted path inside its scope ({@code setup.setup_us}; {@code slow_start.exit} under
 *     each direction)
 * @param scope once per flow, or once per direction (under {@code c2s} and {@code s2c})
 * @param unit what one unit of the value is ({@code µs}, {@code bytes}, {@code segments} ...; empty
 *     for names and flags)
 * @param nullable the value can be absent: null in the Avro contract and the PostgreSQL column,
 *     null in the JSON report and an empty CSV cell (an integer computed as -1 is written null: FlowReport); also every field added after the first
 *     release of the contract, which older records lack
 * @param definition the one-line rule (docs/metrics.md gives the full one)
 * @param label the plain words the long text report ({@code analyze -l}) prints before a direction
 *     field's two values; null for a flow field (the report's header lays those out in sentences)
 * @param reportOnly null when the Avro contract (FlowRecord.avsc) carries the field at the same
 *     path; otherwise why it does not
 * @param column the PostgreSQL {@code flow_summary} column, or null
 * @param window how the job's windows aggregate it
 * @param value how the report computes it from an analysed flow
 */
public record FlowField(
        String path,
        Scope scope,
        String unit,
        boolean nullable,
        String definition,
        String label,
        String reportOnly,
        Column column,
        Window window,
        Value value) {

    public enum Scope {
        FLOW,
        DIRECTION
    }

    /** The two directions of a {@link Scope#DIRECTION} field; the JSON object names are the lower-case names. */
    public enum Side {
        C2S,
        S2C;

        public String jsonName() {
            return this == C2S ? "c2s" : "s2c";
        }
    }

    /** The value kinds of the report, one per {@link ReportVisitor} method. */
    public enum Kind {
        STRING,
        INTEGER,
        DECIMAL,
        BOOL,
        INTEGERS
    }

    /** How a value is computed from one analysed flow (and, for a direction field, one side of it). */
    public sealed interface Value {
        Kind kind();

        /** Writes the value of {@code subject} as the field {@code name}. */
        void emit(String name, FlowSubject subject, ReportVisitor v);
    }

    public record TextValue(Function<FlowSubject, String> of) implements Value {
        public Kind kind() {
            return Kind.STRING;
        }

        public void emit(String name, FlowSubject subject, ReportVisitor v) {
            v.string(name, of.apply(subject));
        }
    }

    public record LongValue(ToLongFunction<FlowSubject> of) implements Value {
        public Kind kind() {
            return Kind.INTEGER;
        }

        public void emit(String name, FlowSubject subject, ReportVisitor v) {
            v.integer(name, of.applyAsLong(subject));
        }
    }

    /** NaN means "no samples": null in every output. */
    public record DecimalValue(ToDoubleFunction<FlowSubject> of) implements Value {
        public Kind kind() {
            return Kind.DECIMAL;
        }

        public void emit(String name, FlowSubject subject, ReportVisitor v) {
            v.decimal(name, of.applyAsDouble(subject));
        }
    }

    public record BoolValue(Predicate<FlowSubject> of) implements Value {
        public Kind kind() {
            return Kind.BOOL;
        }

        public void emit(String name, FlowSubject subject, ReportVisitor v) {
            v.bool(name, of.test(subject));
        }
    }

    public record LongsValue(Function<FlowSubject, long[]> of) implements Value {
        public Kind kind() {
            return Kind.INTEGERS;
        }

        public void emit(String name, FlowSubject subject, ReportVisitor v) {
            long[] values = of.apply(subject);
            v.integers(name, values, values.length);
        }
    }

    /** PostgreSQL column types of the sink tables. TIMESTAMPTZ holds a µs-since-epoch value. */
    public enum SqlType {
        TEXT,
        BIGINT,
        INTEGER,
        DOUBLE_PRECISION,
        BOOLEAN,
        TIMESTAMPTZ
    }

    /** How a field becomes {@code flow_summary} columns. */
    public enum Columns {
        /** One column (flow fields). */
        ONE,
        /** {@code c2s_NAME} and {@code s2c_NAME}. */
        PER_DIRECTION,
        /** One column NAME = c2s + s2c. */
        SUM_OF_DIRECTIONS
    }

    /**
     * @param addedLater the column came to flow_summary after the field was in the record (a
     *     migration added it): rows written before hold NULL, so the column is nullable even when the
     *     field is not ({@link #columnNullable})
     */
    public record Column(String name, SqlType type, Columns columns, boolean addedLater) {
        /** The column names, in table order. */
        public List<String> names() {
            return columns == Columns.PER_DIRECTION ? List.of("c2s_" + name, "s2c_" + name) : List.of(name);
        }
    }

    /** How the job's per-service and per-vantage windows aggregate a field over the flows that ended. */
    public enum Aggregate {
        NONE,
        /** Summed over flows (and both directions) into the window's counter. */
        SUM,
        /** One value per flow (and direction) into the window's sample: count, mean, sd, percentiles. */
        SAMPLE
    }

    /** @param stat the window statistic (FlowWindowStats' field) it feeds, null for NONE */
    public record Window(Aggregate aggregate, String stat) {
        public static final Window NONE = new Window(Aggregate.NONE, null);
    }

    public Kind kind() {
        return value.kind();
    }

    /** The last path segment: the name the report writes. */
    public String name() {
        return path.substring(path.lastIndexOf('.') + 1);
    }

    /** The path in the JSON report and the Avro contract ({@code c2s.dsacks}, {@code s2c.dsacks}). */
    public List<String> jsonPaths() {
        return scope == Scope.FLOW ? List.of(path) : List.of("c2s." + path, "s2c." + path);
    }

    /**
     * The value of this field for {@code subject} (its walked side for a direction field), typed as
     * {@link FlowValues} gives values: Long, Double, String, Boolean or long[]; null when absent by
     * the rule of every output (a nullable integer computed as -1, a decimal without samples: NaN).
     */
    Object valueOf(FlowSubject subject) {
        if (value instanceof LongValue l) {
            long x = l.of().applyAsLong(subject);
            return nullable && x < 0 ? null : Long.valueOf(x);
        }
        if (value instanceof DecimalValue d) {
            double x = d.of().applyAsDouble(subject);
            return Double.isNaN(x) ? null : Double.valueOf(x);
        }
        if (value instanceof TextValue t) {
            return t.of().apply(subject);
        }
        if (value instanceof BoolValue b) {
            return b.of().test(subject);
        }
        return ((LongsValue) value).of().apply(subject);
    }

    /** The flow_summary column can hold NULL: the field can be absent, or older rows predate the column. */
    public boolean columnNullable() {
        return nullable || (column != null && column.addedLater());
    }

    public boolean inAvro() {
        return reportOnly == null;
    }

    FlowField withColumn(String name, SqlType type, Columns columns) {
        return with(new Column(name, type, columns, false));
    }

    /** {@link #withColumn} for a field already in the record when a migration gives it its column. */
    FlowField withLaterColumn(String name, SqlType type, Columns columns) {
        return with(new Column(name, type, columns, true));
    }

    private FlowField with(Column c) {
        return new FlowField(path, scope, unit, nullable, definition, label, reportOnly, c, window, value);
    }

    FlowField summed(String stat) {
        return with(new Window(Aggregate.SUM, stat));
    }

    FlowField sampled(String stat) {
        return with(new Window(Aggregate.SAMPLE, stat));
    }

    private FlowField with(Window w) {
        return new FlowField(path, scope, unit, nullable, definition, label, reportOnly, column, w, value);
    }

    FlowField reportOnly(String why) {
        return new FlowField(path, scope, unit, nullable, definition, label, why, column, window, value);
    }

    FlowField orNull() {
        return new FlowField(path, scope, unit, true, definition, label, reportOnly, column, window, value);
    }
}
