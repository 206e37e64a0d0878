package io.flowtrace.core.report;

import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Connection setup per service (server ip:port), the table of the OpenVPN setup study (docs/design.md, OpenVPN setup): count, mean,
 * standard deviation and percentiles of setup time over the flows that completed their handshake,
 * with SYN retransmissions and how many of them coincided with another flow's (synchronised
 * retries: the study's discussion of reliable_unique_retry).
 */
public final class ServiceSetupTable {
    /** SYN retransmissions of different flows this close together count as synchronised. */
    public static final long SYNCHRONISED_NANOS = SynchronisedRetries.WINDOW_NANOS;

    /** One service's row. Percentiles are nearest-rank over the (possibly sampled) setup times. */
    public record Row(String service, long flows, long established, double meanUs, double sdUs, double p50Us,
            double p90Us, double p99Us, long synRetransmits, long flowsWithSynRetransmits, long synchronisedRetries) {
    }

    private static final class Service {
        long flows;
        long established;
        /** Exact percentiles up to {@link SetupTimeStats#MAX_SAMPLES} flows; a uniform reservoir beyond. */
        final SetupTimeStats setup = new SetupTimeStats();
        double sum;
        double sumSq;
        long synRetransmits;
        long flowsWithRetransmits;
        final SynchronisedRetries retries = new SynchronisedRetries();
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
            if (!s.setup.add(st.setupNanos)) {
                long j = random.nextLong(s.established);
                if (j < SetupTimeStats.MAX_SAMPLES) {
                    s.setup.replace((int) j, st.setupNanos);
                }
            }
        }
        if (st.synRetransmits > 0) {
            s.synRetransmits += st.synRetransmits;
            s.flowsWithRetransmits++;
            long t = st.firstSynNanos;
            for (int i = 0; i < st.synRetransmitGapCount; i++) {
                t += st.synRetransmitGapsNanos[i];
                s.retries.add(t);
            }
        }
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Service> e : services.entrySet()) {
            Service s = e.getValue();
            long[] sorted = s.setup.sorted();
            double mean = s.established == 0 ? Double.NaN : s.sum / s.established;
            double var = s.established < 2 ? 0 : Math.max(0, s.sumSq / s.established - mean * mean);
            rows.add(new Row(e.getKey(), s.flows, s.established, mean / 1000, Math.sqrt(var) / 1000,
                    SetupTimeStats.percentileUs(sorted, 50), SetupTimeStats.percentileUs(sorted, 90),
                    SetupTimeStats.percentileUs(sorted, 99), s.synRetransmits,
                    s.flowsWithRetransmits, s.retries.count()));
        }
        return rows;
    }
}
