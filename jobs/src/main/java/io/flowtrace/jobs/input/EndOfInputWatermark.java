package io.flowtrace.jobs.input;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Passes everything through; at the end of the input (a bounded replay's end, or
 * {@code flink stop --drain}) it announces itself active and emits the final MAX watermark, so
 * every event-time timer and window downstream fires and every open flow is flushed.
 *
 * <p>Flink 2.2 drops that final watermark when the source was idle at the end: the source task
 * emits MAX_WATERMARK into its chain while its announced status is IDLE, and the chain and network
 * outputs discard watermarks while idle (FLINK-40499, open). A drain after a pause longer than the
 * idleness timeout then left open flows unreported and windows unfired. Chained right after each
 * source; stateless, so adding it keeps savepoints compatible.
 */
public final class EndOfInputWatermark<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<T> element) {
        output.collect(element);
    }

    @Override
    public void endInput() {
        output.emitWatermarkStatus(WatermarkStatus.ACTIVE);
        output.emitWatermark(Watermark.MAX_WATERMARK);
    }
}
