package io.flowtrace.core.flow;

import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * The rules of one flow key's life, written once for the offline tracker and the Flink job: when a
 * packet starts a new instance (port reuse), when a flow expires (idle, half-open, or the linger
 * of a closed flow), which versions it reports (the close update, periodic updates, the final
 * version) and when it next needs waking. Time is an input: {@code FlowTracker} feeds it the
 * capture's clock and sweeps, the job the packets' times, its watermark and one event-time timer
 * per key. The caller keeps the {@link State} (a table entry, keyed state) and emits what it is
 * told to; the lifecycle never emits and holds no per-flow data itself.
 *
 * <p>Wake-up times are milliseconds (the unit of Flink's timers); packet times, the expiry clock and
 * the timeouts are nanoseconds, as captured.
 */
public final class FlowLifecycle {
    /** Lingering after both FINs or a RST, for retransmitted FINs and final ACKs (well under TIME_WAIT's 60 s). */
    public static final long CLOSED_LINGER_NANOS = 10_000_000_000L;

    private static final long NANOS_PER_MS = 1_000_000L;
    /** {@link State#nextUpdateMs} of a flow that gets no periodic updates (offline analysis). */
    private static final long NEVER = Long.MAX_VALUE;

    /**
     * What the lifecycle reads and moves for the key's current instance. Adapters extend it with
     * their own bookkeeping and persist these fields as they are (the job's state serializer).
     */
    public static class State {
        /** The current instance's analyser. */
        public TcpFlowAnalyzer flow;
        /** The instance's id ({@link InstanceIdentity#instanceId}). */
        public long instance;
        /** Latest capture time of the instance's packets (ns). */
        public long lastSeenNanos;
        /**
         * The flow's clock for expiry (ns): the latest of its packets' capture times and, for a
         * packet that arrived behind the watermark, the watermark at its arrival. Equal to
         * {@link #lastSeenNanos} while no packet is late (always, offline).
         */
        public long clockNanos;
        /** Time (ms) of the next periodic update; unused offline. */
        public long nextUpdateMs;
        /** Whether the update at FIN/RST time has been decided (sent or folded into the final version). */
        public boolean closeReported;
    }

    /** What a wake-up at a given time found for a flow ({@link #wake}). */
    public enum Wake {
        /**
         * Nothing to emit: sleep until {@link #wakeMs}. A deadline that moved later since the wake-up
         * was asked for, or a periodic update of a closed flow (its close update stands until its
         * final version).
         */
        SLEEP,
        /** Emit a periodic update of the open flow, then call {@link #updated} and sleep until {@link #wakeMs}. */
        UPDATE,
        /**
         * Emit the final version and forget the instance: it expired (already marked so when it had
         * not closed) or the input ended (reported as it is, like an offline flush).
         */
        END
    }

    private final AnalyzerConfig config;
    /** The interval of periodic updates, or 0 for none. */
    private final long updateIntervalMs;

    private FlowLifecycle(AnalyzerConfig config, long updateIntervalMs) {
        this.config = config;
        this.updateIntervalMs = updateIntervalMs;
    }

    /** Offline analysis: each instance is reported once, when it ends. */
    public static FlowLifecycle offline(AnalyzerConfig config) {
        return new FlowLifecycle(config, 0);
    }

    /** Streaming: a version of an open flow every {@code updateIntervalMs} of event time, a close update, the final version. */
    public static FlowLifecycle streaming(AnalyzerConfig config, long updateIntervalMs) {
        return new FlowLifecycle(config, checkedUpdateInterval(updateIntervalMs));
    }

    /**
     * {@code updateIntervalMs} when {@link #streaming} accepts it (at least 1 ms); otherwise an
     * IllegalArgumentException, so a job refuses it when it is built rather than on a task manager.
     */
    public static long checkedUpdateInterval(long updateIntervalMs) {
        if (updateIntervalMs <= 0) {
            throw new IllegalArgumentException("update interval must be positive, got " + updateIntervalMs + " ms");
        }
        return updateIntervalMs;
    }

    /**
     * Whether packet {@code p} ends the current instance of {@code s} and starts a new one; the old
     * instance is then reported as it is (not expired) before {@link #start}. A SYN (without ACK)
     * does when the current instance is closed, has been idle past its timeout, or is established
     * (or its client was guessed) and the SYN carries a different ISN (port reuse). A SYN with a new
     * ISN before establishment is a retried attempt of the same connection. Idleness is measured
     * from the last packet's capture time here, not from the expiry clock.
     */
    public boolean startsNewInstance(State s, DecodedPacket p) {
        if (!p.hasFlag(DecodedPacket.SYN) || p.hasFlag(DecodedPacket.ACK)) {
            return false;
        }
        TcpFlowAnalyzer current = s.flow;
        if (current.closed() || expired(current, s.lastSeenNanos, p.timestampNanos)) {
            return true;
        }
        return (current.established() || current.clientGuessed()) && p.seq != current.clientIsn();
    }

    /** Starts in {@code s} the instance whose first packet is {@code p}: its roles, analyser, id and clocks. */
    public void start(State s, DecodedPacket p) {
        InstanceIdentity.Roles roles = InstanceIdentity.roles(p);
        s.flow = new TcpFlowAnalyzer(roles.client(), roles.server(), roles.guessed(), config);
        s.instance = InstanceIdentity.instanceId(p.timestampNanos);
        s.lastSeenNanos = p.timestampNanos;
        s.clockNanos = p.timestampNanos;
        s.nextUpdateMs =
                updateIntervalMs == 0 ? NEVER : Math.floorDiv(p.timestampNanos, NANOS_PER_MS) + updateIntervalMs;
        s.closeReported = false;
    }

    /**
     * Takes the time of a packet of the instance, before its analysis: last seen, and the expiry
     * clock, which a late packet (captured before the watermark {@code watermarkMs}; offline
     * {@code Long.MIN_VALUE}) moves to the watermark, so a flow that lags the job's event time is
     * not cut between two of its own packets.
     *
     * @return whether the packet is late
     */
    public boolean seen(State s, long packetNanos, long watermarkMs) {
        long clockNanos = packetNanos;
        boolean late = Math.floorDiv(packetNanos, NANOS_PER_MS) < watermarkMs;
        if (late) {
            clockNanos = Math.max(clockNanos, watermarkMs * NANOS_PER_MS); // a late packet's ms is a sane epoch
        }
        s.lastSeenNanos = Math.max(s.lastSeenNanos, packetNanos);
        s.clockNanos = Math.max(s.clockNanos, clockNanos);
        return late;
    }

    /**
     * After a packet's analysis: what the flow's close asks for now. Dashboards see the FIN/RST
     * when it happens and the final version follows after the linger: {@link Close#UPDATE}. But a
     * flow that closes before its first periodic update (no update has been due yet and the close
     * came before the first update's time: most short connections) has its final version only on
     * every output but one, one record instead of three; its PostgreSQL row alone is written at the
     * close too ({@link Close#ROW}), so a reader polling flow_summary sees the close when it happens
     * rather than after the linger and the watermark's delay (docs/job.md, "Per-flow state and
     * time"). Asked once per instance: the first call after the flow closed decides; every other
     * call gets {@link Close#NONE}.
     */
    public Close closeUpdate(State s, long packetMs) {
        if (!s.flow.closed() || s.closeReported) {
            return Close.NONE;
        }
        s.closeReported = true;
        long firstUpdateMs = Math.floorDiv(s.instance, 1000) + updateIntervalMs;
        boolean closesBeforeFirstUpdate = s.nextUpdateMs == firstUpdateMs && packetMs < firstUpdateMs;
        return closesBeforeFirstUpdate ? Close.ROW : Close.UPDATE;
    }

    /** What a packet that closed the flow asks the caller to emit at its time ({@link #closeUpdate}). */
    public enum Close {
        /** Nothing: the flow is open, or its close was decided at an earlier packet. */
        NONE,
        /** The close update: a version of the flow on every output (not final). */
        UPDATE,
        /**
         * The close update is folded into the final version on every output but the flow_summary
         * row: only that row is written now (not final), and the final version after the linger
         * upserts the same row.
         */
        ROW
    }

    /** The next wake-up (ms): the earlier of the expiry deadline (rounded up to a millisecond) and the next periodic update. */
    public long wakeMs(State s) {
        return Math.min(-Math.floorDiv(-deadlineNanos(s), NANOS_PER_MS), s.nextUpdateMs);
    }

    /**
     * A wake-up at {@code atMs}: at the end of input the flow ends as it is once its current
     * wake-up time has come (a wake-up asked for before a later packet moved the deadline is
     * superseded, so the final version's time does not depend on how far time had got before the
     * input ended); otherwise an expired flow ends, and a due periodic update is emitted for an open
     * flow and skipped for a closed one.
     */
    public Wake wake(State s, long atMs, boolean endOfInput) {
        if (endOfInput) {
            return atMs < wakeMs(s) ? Wake.SLEEP : Wake.END;
        }
        if (expired(s, atMs * NANOS_PER_MS)) {
            expire(s);
            return Wake.END;
        }
        if (atMs >= s.nextUpdateMs) {
            if (!s.flow.closed()) {
                return Wake.UPDATE;
            }
            // advanced all the same: the final version's record time does not change
            updated(s, atMs);
        }
        return Wake.SLEEP;
    }

    /** After the periodic update a wake-up at {@code atMs} asked for: the next one is one interval later. */
    public void updated(State s, long atMs) {
        s.nextUpdateMs = atMs + updateIntervalMs;
    }

    /** Whether the flow has timed out at {@code nowNanos} (see {@link #wakeMs}): the offline sweep's test. */
    public boolean expired(State s, long nowNanos) {
        return expired(s.flow, s.clockNanos, nowNanos);
    }

    /** Marks an expired flow that had not closed as ended by its timeout. */
    public void expire(State s) {
        if (!s.flow.closed()) {
            s.flow.expire();
        }
    }

    /** When {@link #expired} first holds. */
    private long deadlineNanos(State s) {
        return s.clockNanos + timeoutNanos(s.flow);
    }

    private boolean expired(TcpFlowAnalyzer flow, long sinceNanos, long nowNanos) {
        return nowNanos - sinceNanos >= timeoutNanos(flow);
    }

    /** Closed: the linger; established: the idle timeout; otherwise (a handshake not completed) the half-open timeout. */
    private long timeoutNanos(TcpFlowAnalyzer flow) {
        if (flow.closed()) {
            return CLOSED_LINGER_NANOS;
        }
        return flow.established() ? config.idleTimeoutNanos() : config.halfOpenTimeoutNanos();
    }
}
