package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.metrics.Counter;
import org.apache.flink.types.Either;

/**
 * Bounded out-of-orderness watermarks of one Kafka partition that follow its slowest active vantage,
 * not its fastest one: a partition carries many agents' records (the key is a flow or a tuple), and
 * with Flink's {@code forBoundedOutOfOrderness} the largest timestamp of any of them drives the
 * watermark. Here each vantage's watermark is its own largest time minus the out-of-orderness (as
 * Flink's), and the partition's is the smallest of them, so one vantage can hold the watermark back
 * but never push it past the others. Three rules keep a forged record from moving event time
 * (docs/reliability.md "Security"):
 *
 * <ul>
 *   <li>only a validated record has a time ({@link VantageTime}: a batch whose packets are all invalid
 *       has none), and a time more than {@code maxFutureMs} ahead of the job's wall clock moves
 *       nothing, not even under an honest vantage's name (counted: {@code watermarkFutureSkipped});
 *   <li>a vantage that has sent nothing for {@code vantageIdleMs} of wall-clock time stops counting
 *       (an agent that went away must not stall the windows); 0 keeps every vantage. This is the only
 *       way a vantage leaves: a flood of new names cannot evict an honest one;
 *   <li>new vantages are admitted at most {@link #ADMISSION_BURST} at once and then
 *       {@link #ADMISSIONS_PER_SECOND} a second, up to {@link #MAX_VANTAGES}; a name refused admission
 *       moves nothing (counted: {@code watermarkVantagesRefused}) and is tried again on its next record.
 *       Admission costs no scan; the periodic emit walks the admitted vantages once.
 * </ul>
 */
final class SlowestVantageWatermarks<T> implements WatermarkGenerator<Either<DeadLetter, T>> {
    static final int MAX_VANTAGES = 10_000;
    static final int ADMISSION_BURST = 1_000;
    static final int ADMISSIONS_PER_SECOND = 10;

    private final VantageTime<T> times;
    private final long outOfOrdernessMs;
    private final long vantageIdleMs;
    private final long maxFutureMs;
    private final LongSupplier wallClockMs;
    private final Counter futureSkipped;
    private final Counter vantagesRefused;
    /** vantage → {largest time (ms), last seen (wall-clock ms)} */
    private final Map<String, long[]> vantages = new HashMap<>();

    private long emitted = Long.MIN_VALUE;
    private double admissions = ADMISSION_BURST;
    private long admissionsAt = Long.MIN_VALUE;

    SlowestVantageWatermarks(
            VantageTime<T> times,
            long outOfOrdernessMs,
            long vantageIdleMs,
            long maxFutureMs,
            LongSupplier wallClockMs,
            Counter futureSkipped,
            Counter vantagesRefused) {
        this.times = times;
        this.outOfOrdernessMs = outOfOrdernessMs;
        this.vantageIdleMs = vantageIdleMs;
        this.maxFutureMs = maxFutureMs;
        this.wallClockMs = wallClockMs;
        this.futureSkipped = futureSkipped;
        this.vantagesRefused = vantagesRefused;
    }

    @Override
    public void onEvent(Either<DeadLetter, T> event, long timestamp, WatermarkOutput output) {
        if (event.isLeft()) {
            return; // dead letters never move event time
        }
        long now = wallClockMs.getAsLong();
        long time = times.time(event.right(), timestamp, now);
        if (time == Long.MIN_VALUE) {
            return;
        }
        if (time - now > maxFutureMs) {
            futureSkipped.inc();
            return;
        }
        String vantage = times.vantage(event.right());
        long[] v = vantages.get(vantage);
        if (v == null) {
            if (!admit(now)) {
                vantagesRefused.inc();
                return;
            }
            v = new long[] {Long.MIN_VALUE, now};
            vantages.put(vantage, v);
        }
        v[0] = Math.max(v[0], time);
        v[1] = now;
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

    /** Vantages tracked now (tests). */
    int vantageCount() {
        return vantages.size();
    }

    /** A token bucket of {@link #ADMISSION_BURST} refilled at {@link #ADMISSIONS_PER_SECOND}, and the map's bound. */
    private boolean admit(long now) {
        if (vantages.size() >= MAX_VANTAGES) {
            return false;
        }
        if (admissionsAt != Long.MIN_VALUE && now > admissionsAt) {
            admissions = Math.min(ADMISSION_BURST, admissions + (now - admissionsAt) * ADMISSIONS_PER_SECOND / 1000.0);
        }
        admissionsAt = now;
        if (admissions < 1) {
            return false;
        }
        admissions--;
        return true;
    }
}
