package io.flowtrace.core.report;

import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Connection setup per service (server ip:port), the table of the OpenVPN setup study (docs/design.md, OpenVPN setup): count, mean,
 * standard deviation and percentiles of setup time over the flows that completed their handshake,
 * with SYN retransmissions and how many of them coincided with another flow's (synchronised
 * retries: the study's discussion of reliable_unique_retry).
 *
 * <p>A row per service and vantage (capture interface): a connection seen on two interfaces of one
 * pcapng is one connection at each, and its setup time differs with where it was seen, so the two
 * are never added together (200 connections once read as 400).
 */
public final class ServiceSetupTable {
    /** SYN retransmissions of different flows this close together count as synchronised. */
    public static final long SYNCHRONISED_NANOS = SynchronisedRetries.WINDOW_NANOS;

    /**
     * One service's row at one interface. Percentiles are nearest-rank over the (possibly sampled)
     * setup times.
     */
    public record Row(
            String service,
            String iface,
            long flows,
            long established,
            double meanUs,
            double sdUs,
            double p50Us,
            double p90Us,
            double p99Us,
            long synRetransmits,
            long flowsWithSynRetransmits,
            long synchronisedRetries) {}

    private static final class Service {
        long flows;
        long established;
        /** Setup times (ns): exact percentiles up to {@link SetupTimeStats#MAX_SAMPLES} flows, a uniform sample beyond. */
        final SampleReservoir setup = new SampleReservoir(SetupTimeStats.MAX_SAMPLES);

        long synRetransmits;
        long flowsWithRetransmits;
        final SynchronisedRetries retries = new SynchronisedRetries();
    }

    /** By service, then interface: a service's rows stay together, in the order they always had. */
    private record Key(String service, String iface) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = service.compareTo(o.service);
            return c != 0 ? c : iface.compareTo(o.iface);
        }
    }

    private final Map<Key, Service> services = new TreeMap<>();

    /** Adds a finished flow seen on interface {@code iface} (its vantage's interface name). */
    public void add(String iface, TcpFlowAnalyzer flow) {
        Service s = services.computeIfAbsent(new Key(flow.server().toString(), iface), k -> new Service());
        s.flows++;
        SetupStats st = flow.setup();
        if (st.setupNanos >= 0) {
            s.established++;
            s.setup.add(st.setupNanos);
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
        for (Map.Entry<Key, Service> e : services.entrySet()) {
            Service s = e.getValue();
            SampleReservoir setup = s.setup;
            double sd = s.established < 2 ? 0 : setup.sd();
            rows.add(new Row(
                    e.getKey().service(),
                    e.getKey().iface(),
                    s.flows,
                    s.established,
                    setup.mean() / 1000,
                    sd / 1000,
                    setup.percentile(50) / 1000,
                    setup.percentile(90) / 1000,
                    setup.percentile(99) / 1000,
                    s.synRetransmits,
                    s.flowsWithRetransmits,
                    s.retries.count()));
        }
        return rows;
    }
}
