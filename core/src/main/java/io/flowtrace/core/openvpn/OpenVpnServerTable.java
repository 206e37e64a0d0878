package io.flowtrace.core.openvpn;

import io.flowtrace.core.report.SetupTimeStats;
import io.flowtrace.core.report.SynchronisedRetries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Setup time across the sessions of each OpenVPN server (ip:port): the table seed-style
 * comparisons are made of (runs, mean, sd, percentiles), with the server's timer-driven
 * retransmissions and how many fell within {@link #SYNCHRONISED_NANOS} of another session's
 * (synchronised retries: what OpenVPN's reliable_unique_retry() tried to avoid, by spreading
 * retries of one process over distinct seconds). Exact over the first
 * {@link SetupTimeStats#MAX_SAMPLES} sessions per server.
 */
public final class OpenVpnServerTable {
    /** Retries of different sessions this close together count as synchronised (as for TCP SYNs). */
    public static final long SYNCHRONISED_NANOS = SynchronisedRetries.WINDOW_NANOS;

    /** One server's row; times in microseconds, percentiles nearest-rank; NaN without samples. */
    public record Row(
            String server,
            long sessions,
            long completed,
            double meanUs,
            double sdUs,
            double p50Us,
            double p90Us,
            double p99Us,
            long serverRetransmits,
            long clientRetransmits,
            long synchronisedRetries) {}

    private static final class Server {
        long sessions;
        long completed;
        final SetupTimeStats setup = new SetupTimeStats();
        long serverRetransmits;
        long clientRetransmits;
        /** The server's timer-driven retransmissions, owned by session index. */
        final SynchronisedRetries retries = new SynchronisedRetries();
    }

    private final Map<String, Server> servers = new TreeMap<>();

    public void add(OpenVpnSession session) {
        add(
                session.server(),
                session.setupNanos(),
                session.s2c().retransmits(),
                session.c2s().retransmits(),
                timerRetryTimes(session));
    }

    /**
     * One session of {@code server} given by its summary: setup time (-1 if not completed), the
     * retransmissions of each side and the times of the server's timer-driven ones (ns), as a
     * streaming job keeps them per session.
     */
    public void add(
            String server,
            long setupNanos,
            long serverRetransmits,
            long clientRetransmits,
            long[] serverTimerRetryNanos) {
        Server s = servers.computeIfAbsent(server, k -> new Server());
        long index = s.sessions++;
        if (setupNanos >= 0) {
            s.completed++;
            s.setup.add(setupNanos);
        }
        s.serverRetransmits += serverRetransmits;
        s.clientRetransmits += clientRetransmits;
        for (long t : serverTimerRetryNanos) {
            s.retries.add(t, index);
        }
    }

    /** The times (ns) of the server's timer-driven retransmissions in {@code session} (of the first listed ones). */
    public static long[] timerRetryTimes(OpenVpnSession session) {
        List<Long> times = session.s2c().retransmitTimesNanos();
        List<RetransmitCause> causes = session.s2c().retransmitCauses();
        int n = 0;
        for (RetransmitCause c : causes) {
            n += c == RetransmitCause.TIMEOUT ? 1 : 0;
        }
        long[] out = new long[n];
        for (int i = 0, j = 0; i < times.size(); i++) {
            if (causes.get(i) == RetransmitCause.TIMEOUT) {
                out[j++] = times.get(i);
            }
        }
        return out;
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Server> e : servers.entrySet()) {
            Server s = e.getValue();
            long[] sorted = s.setup.sorted();
            double mean = SetupTimeStats.mean(sorted);
            double sd = SetupTimeStats.sampleSd(sorted, mean);
            rows.add(new Row(
                    e.getKey(),
                    s.sessions,
                    s.completed,
                    mean / 1000,
                    sd / 1000,
                    percentile(sorted, 50),
                    percentile(sorted, 90),
                    percentile(sorted, 99),
                    s.serverRetransmits,
                    s.clientRetransmits,
                    s.retries.count()));
        }
        return rows;
    }

    /** Retries, as (time ns, session index), with a retry of another session within {@link #SYNCHRONISED_NANOS}. */
    static long synchronised(List<long[]> retries) {
        SynchronisedRetries r = new SynchronisedRetries();
        for (long[] retry : retries) {
            r.add(retry[0], retry[1]);
        }
        return r.count();
    }

    /** Nearest-rank percentile in microseconds; NaN without samples. */
    static double percentile(long[] sorted, double p) {
        return SetupTimeStats.percentileUs(sorted, p);
    }
}
