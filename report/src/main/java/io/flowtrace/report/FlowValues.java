package io.flowtrace.report;

/**
 * A flow record's values looked up by catalogue field, whatever holds them: the job reads its Avro
 * FlowRecord through one (schemas' AvroFlowValues), so the windows and the PostgreSQL columns take
 * their inputs and the derived values of {@link FlowFields} from the same declarations; {@code
 * analyze}'s table, {@code --sort} and {@code -l} read an analysed flow through another
 * ({@link FlowReport#values}).
 */
public interface FlowValues {
    /**
     * The value of {@code field} ({@code side} chooses the direction of a direction field and is
     * ignored for a flow field): a Number, String (enums as their report names), Boolean or
     * long[]; null when absent.
     */
    Object value(FlowField field, FlowField.Side side);

    default Number number(FlowField field, FlowField.Side side) {
        return (Number) value(field, side);
    }

    /** The value as a count; absent counts as 0. */
    default long integer(FlowField field, FlowField.Side side) {
        Number n = number(field, side);
        return n == null ? 0 : n.longValue();
    }
}
