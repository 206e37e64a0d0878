package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.types.Either;

/**
 * Bounded out-of-orderness watermarks of one Kafka partition that follow its slowest active vantage,
 * not its fastest one: the partition carries many agents' samples (the key is the tuple), and with
 * Flink's {@code forBoundedOutOfOrderness} the largest timestamp of any of them drives the watermark.
 * A forged or broken vantage a day ahead (validation lets up to a day of clock skew through) would
 * make every other vantage's samples late and drop them from their windows. Here each vantage's
 * watermark is its own largest timestamp minus the out-of-orderness (as Flink's), and the partition's
 * is the smallest of them, so one vantage can hold the watermark back but never push it past others.
 *
 * <p>A vantage that has sent nothing for {@code vantageIdleMs} of wall-clock time stops counting (an
 * agent that went away must not stall the windows); 0 keeps every vantage, as a silent partition holds
 * back the job's watermark without idleness. At most {@link #MAX_VANTAGES} are tracked per partition:
 * beyond that the longest-silent one is forgotten (bounded memory against forged vantage names).
 */
final class SlowestVantageWatermarks implements WatermarkGenerator<Either<DeadLetter, ConntrackSample>> {
    static final int MAX_VANTAGES = 10_000;

    private final long outOfOrdernessMs;
    private final long vantageIdleMs;
    private final LongSupplier wallClockMs;
    /** vantage → {largest timestamp (ms), last seen (wall-clock ms)} */
    private final Map<String, long[]> vantages = new HashMap<>();

    private long emitted = Long.MIN_VALUE;

    SlowestVantageWatermarks(long outOfOrdernessMs, long vantageIdleMs, LongSupplier wallClockMs) {
        this.outOfOrdernessMs = outOfOrdernessMs;
        this.vantageIdleMs = vantageIdleMs;
        this.wallClockMs = wallClockMs;
    }

    @Override
    public void onEvent(Either<DeadLetter, ConntrackSample> event, long timestamp, WatermarkOutput output) {
        if (event.isLeft()) {
            return; // dead letters never move event time
        }
        String vantage = event.right().vantage();
        long[] v = vantages.get(vantage);
        if (v == null) {
            if (vantages.size() >= MAX_VANTAGES) {
                forgetLongestSilent();
            }
            v = new long[] {Long.MIN_VALUE, 0};
            vantages.put(vantage, v);
        }
        v[0] = Math.max(v[0], timestamp);
        v[1] = wallClockMs.getAsLong();
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        long now = wallClockMs.getAsLong();
        long slowest = Long.MAX_VALUE;
        for (Iterator<long[]> it = vantages.values().iterator(); it.hasNext(); ) {
            long[] v = it.next();
            if (vantageIdleMs > 0 && now - v[1] > vantageIdleMs) {
                it.remove();
            } else {
                slowest = Math.min(slowest, v[0]);
            }
        }
        if (slowest == Long.MAX_VALUE) {
            return; // no active vantage: nothing new (the source's idleness marks the partition idle)
        }
        long watermark = slowest - outOfOrdernessMs - 1;
        if (watermark > emitted) {
            emitted = watermark;
            output.emitWatermark(new Watermark(watermark));
        }
    }

    private void forgetLongestSilent() {
        String oldest = null;
        long oldestSeen = Long.MAX_VALUE;
        for (Map.Entry<String, long[]> e : vantages.entrySet()) {
            if (e.getValue()[1] < oldestSeen) {
                oldestSeen = e.getValue()[1];
                oldest = e.getKey();
            }
        }
        vantages.remove(oldest);
    }
}
