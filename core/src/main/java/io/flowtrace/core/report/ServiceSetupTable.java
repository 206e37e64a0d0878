package io.flowtrace.core.report;

import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Connection setup per service (server ip:port), the table seed 000 compares by hand: count, mean,
 * standard deviation and percentiles of setup time over the flows that completed their handshake,
 * with SYN retransmissions and how many of them coincided with another flow's (synchronised
 * retries: seed 000's discussion of reliable_unique_retry).
 */
public final class ServiceSetupTable {
    /** Exact percentiles up to this many flows per service; a uniform reservoir beyond. */
    static final int MAX_SAMPLES = 100_000;
    /** SYN retransmissions of different flows this close together count as synchronised. */
    public static final long SYNCHRONISED_NANOS = 5_000_000L;

    /** One service's row. Percentiles are nearest-rank over the (possibly sampled) setup times. */
    public record Row(String service, long flows, long established, double meanUs, double sdUs, double p50Us,
            double p90Us, double p99Us, long synRetransmits, long flowsWithSynRetransmits, long synchronisedRetries) {
    }

    private static final class Service {
        long flows;
        long established;
        long[] setup = new long[64];
        int n;
        double sum;
        double sumSq;
        long synRetransmits;
        long flowsWithRetransmits;
        final List<Long> retryTimes = new ArrayList<>();
    }

    private final Map<String, Service> services = new TreeMap<>();
    private final SplittableRandom random = new SplittableRandom(1);

    public void add(TcpFlowAnalyzer flow) {
        Service s = services.computeIfAbsent(flow.server().toString(), k -> new Service());
        s.flows++;
        SetupStats st = flow.setup();
        if (st.setupNanos >= 0) {
            s.established++;
            s.sum += st.setupNanos;
            s.sumSq += (double) st.setupNanos * st.setupNanos;
            if (s.n < MAX_SAMPLES) {
                if (s.n == s.setup.length) {
                    s.setup = Arrays.copyOf(s.setup, s.n * 2);
                }
                s.setup[s.n++] = st.setupNanos;
            } else {
                long j = random.nextLong(s.established);
                if (j < MAX_SAMPLES) {
                    s.setup[(int) j] = st.setupNanos;
                }
            }
        }
        if (st.synRetransmits > 0) {
            s.synRetransmits += st.synRetransmits;
            s.flowsWithRetransmits++;
            long t = st.firstSynNanos;
            for (int i = 0; i < st.synRetransmitGapCount; i++) {
                t += st.synRetransmitGapsNanos[i];
                if (s.retryTimes.size() < MAX_SAMPLES) {
                    s.retryTimes.add(t);
                }
            }
        }
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Service> e : services.entrySet()) {
            Service s = e.getValue();
            long[] sorted = Arrays.copyOf(s.setup, s.n);
            Arrays.sort(sorted);
            double mean = s.established == 0 ? Double.NaN : s.sum / s.established;
            double var = s.established < 2 ? 0 : Math.max(0, s.sumSq / s.established - mean * mean);
            rows.add(new Row(e.getKey(), s.flows, s.established, mean / 1000, Math.sqrt(var) / 1000,
                    percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), s.synRetransmits,
                    s.flowsWithRetransmits, synchronised(s.retryTimes)));
        }
        return rows;
    }

    /** Retries with another retry within {@link #SYNCHRONISED_NANOS} (across flows of the service). */
    private static long synchronised(List<Long> times) {
        long[] t = times.stream().mapToLong(Long::longValue).sorted().toArray();
        long n = 0;
        for (int i = 0; i < t.length; i++) {
            boolean near = (i > 0 && t[i] - t[i - 1] <= SYNCHRONISED_NANOS)
                    || (i + 1 < t.length && t[i + 1] - t[i] <= SYNCHRONISED_NANOS);
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
