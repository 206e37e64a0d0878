package io.flowtrace.core.openvpn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Setup time across the sessions of each OpenVPN server (ip:port): the table seed-style
 * comparisons are made of (runs, mean, sd, percentiles), with the server's timer-driven
 * retransmissions and how many fell within {@link #SYNCHRONISED_NANOS} of another session's
 * (synchronised retries: what OpenVPN's reliable_unique_retry() tried to avoid, by spreading
 * retries of one process over distinct seconds). Exact over the first {@link #MAX_SAMPLES}
 * sessions per server.
 */
public final class OpenVpnServerTable {
    static final int MAX_SAMPLES = 100_000;
    /** Retries of different sessions this close together count as synchronised (as for TCP SYNs). */
    public static final long SYNCHRONISED_NANOS = 5_000_000L;

    /** One server's row; times in microseconds, percentiles nearest-rank; NaN without samples. */
    public record Row(String server, long sessions, long completed, double meanUs, double sdUs, double p50Us,
            double p90Us, double p99Us, long serverRetransmits, long clientRetransmits, long synchronisedRetries) {
    }

    private static final class Server {
        long sessions;
        long completed;
        long[] setup = new long[16];
        int n;
        long serverRetransmits;
        long clientRetransmits;
        /** (time ns, session index) of the server's timer-driven retransmissions. */
        final List<long[]> retries = new ArrayList<>();
    }

    private final Map<String, Server> servers = new TreeMap<>();

    public void add(OpenVpnSession session) {
        Server s = servers.computeIfAbsent(session.server(), k -> new Server());
        long index = s.sessions++;
        long setup = session.setupNanos();
        if (setup >= 0) {
            s.completed++;
        }
        if (setup >= 0 && s.n < MAX_SAMPLES) {
            if (s.n == s.setup.length) {
                s.setup = Arrays.copyOf(s.setup, s.n * 2);
            }
            s.setup[s.n++] = setup;
        }
        s.serverRetransmits += session.s2c().retransmits();
        s.clientRetransmits += session.c2s().retransmits();
        List<Long> times = session.s2c().retransmitTimesNanos();
        List<RetransmitCause> causes = session.s2c().retransmitCauses();
        for (int i = 0; i < times.size() && s.retries.size() < MAX_SAMPLES; i++) {
            if (causes.get(i) == RetransmitCause.TIMEOUT) {
                s.retries.add(new long[] {times.get(i), index});
            }
        }
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Server> e : servers.entrySet()) {
            Server s = e.getValue();
            long[] sorted = Arrays.copyOf(s.setup, s.n);
            Arrays.sort(sorted);
            double sum = 0;
            for (long v : sorted) {
                sum += v;
            }
            double mean = sorted.length == 0 ? Double.NaN : sum / sorted.length;
            double sq = 0;
            for (long v : sorted) {
                sq += (v - mean) * (v - mean);
            }
            // sample standard deviation (n - 1), as a run-to-run comparison reports it
            double sd = sorted.length < 2 ? Double.NaN : Math.sqrt(sq / (sorted.length - 1));
            rows.add(new Row(e.getKey(), s.sessions, s.completed, mean / 1000, sd / 1000, percentile(sorted, 50),
                    percentile(sorted, 90), percentile(sorted, 99), s.serverRetransmits, s.clientRetransmits,
                    synchronised(s.retries)));
        }
        return rows;
    }

    /** Retries with a retry of another session within {@link #SYNCHRONISED_NANOS}. */
    static long synchronised(List<long[]> retries) {
        long[][] r = retries.toArray(new long[0][]);
        Arrays.sort(r, (a, b) -> Long.compare(a[0], b[0]));
        long n = 0;
        for (int i = 0; i < r.length; i++) {
            boolean near = false;
            for (int j = i - 1; j >= 0 && r[i][0] - r[j][0] <= SYNCHRONISED_NANOS && !near; j--) {
                near = r[j][1] != r[i][1];
            }
            for (int j = i + 1; j < r.length && r[j][0] - r[i][0] <= SYNCHRONISED_NANOS && !near; j++) {
                near = r[j][1] != r[i][1];
            }
            if (near) {
                n++;
            }
        }
        return n;
    }

    /** Nearest-rank percentile in microseconds; NaN without samples. */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1000.0;
    }
}
