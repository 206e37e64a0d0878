package io.flowtrace.demo;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The summary printed when the job has drained, every number read back from the sink tables
 * (docs/demo.md lists the queries): flows, top flows by retransmissions with their classes,
 * slow-start exits, setup time per service, OpenVPN setup time per server, conntrack budgets, dead
 * letters.
 */
public final class DemoSummary {
    static final int TOP = 8;

    private DemoSummary() {}

    static void print(Db db, PrintStream out) {
        Map<String, Object> t = db.query("""
                SELECT count(*) AS flows, coalesce(sum(c2s_packets + s2c_packets), 0) AS packets,
                       coalesce(sum(c2s_data_bytes + s2c_data_bytes), 0) AS data_bytes,
                       coalesce(sum(c2s_retransmitted_packets + s2c_retransmitted_packets), 0) AS retransmits,
                       count(DISTINCT vantage) AS vantages
                FROM flow_summary""").get(0);
        out.println();
        out.println("== flowtrace demo: results (read back from PostgreSQL)");
        out.printf(
                Locale.ROOT,
                "flows: %,d at %d vantage points; packets: %,d; data bytes: %,d; retransmitted packets: %,d;"
                        + " tcp events: %,d%n",
                Db.l(t, "flows"),
                Db.l(t, "vantages"),
                Db.l(t, "packets"),
                Db.l(t, "data_bytes"),
                Db.l(t, "retransmits"),
                db.count("SELECT count(*) FROM tcp_events"));
        topRetransmitters(db, out);
        slowStartExits(db, out);
        setupPerService(db, out);
        openVpn(db, out);
        conntrack(db, out);
        deadLetters(db, out);
    }

    private static void topRetransmitters(Db db, PrintStream out) {
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, client, server, end_state,
                       c2s_retransmitted_packets + s2c_retransmitted_packets AS rtx,
                       c2s_packets + s2c_packets AS packets,
                       retransmits_rto, retransmits_fast, retransmits_spurious, retransmits_tlp, retransmits_other
                FROM flow_summary WHERE c2s_retransmitted_packets + s2c_retransmitted_packets > 0
                ORDER BY rtx DESC, first_seen, client LIMIT ?""", TOP);
        out.println();
        out.printf(
                Locale.ROOT,
                "top flows by retransmissions (%,d flows retransmitted):%n",
                db.count(
                        "SELECT count(*) FROM flow_summary WHERE c2s_retransmitted_packets + s2c_retransmitted_packets > 0"));
        out.printf(
                Locale.ROOT,
                "  %-22s %-24s %-24s %5s %8s  %s%n",
                "vantage",
                "client",
                "server",
                "rtx",
                "packets",
                "classes (rto fast spurious tlp other)");
        for (Map<String, Object> r : rows) {
            out.printf(
                    Locale.ROOT,
                    "  %-22s %-24s %-24s %5d %8d  %d %d %d %d %d  (%s)%n",
                    Db.s(r, "vantage"),
                    Db.s(r, "client"),
                    Db.s(r, "server"),
                    Db.l(r, "rtx"),
                    Db.l(r, "packets"),
                    Db.l(r, "retransmits_rto"),
                    Db.l(r, "retransmits_fast"),
                    Db.l(r, "retransmits_spurious"),
                    Db.l(r, "retransmits_tlp"),
                    Db.l(r, "retransmits_other"),
                    Db.s(r, "end_state"));
        }
        Map<String, Object> byClass = db.query("""
                SELECT coalesce(sum(retransmits_rto), 0) AS rto, coalesce(sum(retransmits_fast), 0) AS fast,
                       coalesce(sum(retransmits_spurious), 0) AS spurious, coalesce(sum(retransmits_tlp), 0) AS tlp,
                       coalesce(sum(retransmits_other), 0) AS other FROM flow_summary""").get(0);
        out.printf(
                Locale.ROOT,
                "  all flows by class: rto %,d, fast %,d, spurious %,d, tlp %,d, other %,d%n",
                Db.l(byClass, "rto"),
                Db.l(byClass, "fast"),
                Db.l(byClass, "spurious"),
                Db.l(byClass, "tlp"),
                Db.l(byClass, "other"));
    }

    /** One row per direction that left slow start (from the report jsonb: the typed columns do not hold it). */
    public static final String SLOW_START_EXITS = """
            SELECT f.vantage, f.client, f.server, d.dir,
                   f.report -> d.dir -> 'slow_start' ->> 'exit' AS reason,
                   (f.report -> d.dir -> 'slow_start' ->> 'exit_cwnd_segments')::bigint AS cwnd_segments,
                   (f.report -> d.dir -> 'slow_start' ->> 'exit_cwnd_bytes')::bigint AS cwnd_bytes,
                   (f.report -> d.dir -> 'slow_start' ->> 'bdp_bytes')::bigint AS bdp_bytes,
                   (f.report -> d.dir -> 'slow_start' ->> 'premature')::boolean AS premature,
                   (f.report -> d.dir ->> 'data_bytes')::bigint AS data_bytes
            FROM flow_summary f, (VALUES ('c2s'), ('s2c')) AS d(dir)
            WHERE (f.report -> d.dir -> 'slow_start' ->> 'exit_cwnd_bytes')::bigint >= 0""";

    private static void slowStartExits(Db db, PrintStream out) {
        List<Map<String, Object>> byReason =
                db.query("SELECT reason, count(*) AS n, count(*) FILTER (WHERE premature) AS premature" + " FROM ("
                        + SLOW_START_EXITS + ") x GROUP BY reason ORDER BY n DESC, reason");
        long total = byReason.stream().mapToLong(r -> Db.l(r, "n")).sum();
        long premature = byReason.stream().mapToLong(r -> Db.l(r, "premature")).sum();
        out.println();
        out.printf(Locale.ROOT, "slow-start exits: %,d (premature: %,d)%n", total, premature);
        for (Map<String, Object> r : byReason) {
            out.printf(
                    Locale.ROOT,
                    "  %-10s %,6d exits, %,d premature%n",
                    Db.s(r, "reason"),
                    Db.l(r, "n"),
                    Db.l(r, "premature"));
        }
        for (Map<String, Object> r : db.query("""
                SELECT f.report -> d.dir -> 'slow_start' ->> 'exit' AS reason, count(*) AS n
                FROM flow_summary f, (VALUES ('c2s'), ('s2c')) AS d(dir)
                WHERE (f.report -> d.dir -> 'slow_start' ->> 'exit_cwnd_bytes')::bigint < 0
                  AND f.report -> d.dir -> 'slow_start' ->> 'exit' <> 'none'
                GROUP BY 1 ORDER BY 2 DESC, 1""")) {
            out.printf(
                    Locale.ROOT,
                    "  %-10s %,6d senders still in slow start at the end, held back by this limit%n",
                    Db.s(r, "reason"),
                    Db.l(r, "n"));
        }
        List<Map<String, Object>> largest = db.query(
                "SELECT * FROM (" + SLOW_START_EXITS + ") x" + " ORDER BY data_bytes DESC, vantage, client LIMIT 5");
        if (!largest.isEmpty()) {
            out.println("  largest senders:");
        }
        for (Map<String, Object> r : largest) {
            long bdp = Db.l(r, "bdp_bytes");
            out.printf(
                    Locale.ROOT,
                    "  %-22s %-24s %s  exit %-9s cwnd %4d segments (%,d B), BDP %s%s%n",
                    Db.s(r, "vantage"),
                    Db.s(r, "client"),
                    Db.s(r, "dir"),
                    Db.s(r, "reason"),
                    Db.l(r, "cwnd_segments"),
                    Db.l(r, "cwnd_bytes"),
                    bdp < 0 ? "- (no RTT sample)" : String.format(Locale.ROOT, "%,d B", bdp),
                    Boolean.TRUE.equals(r.get("premature")) ? "  PREMATURE" : "");
        }
    }

    public static final String SETUP_PER_SERVICE = """
            SELECT vantage, server, count(*) AS flows, count(setup_us) AS handshakes,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY setup_us) AS p50,
                   percentile_cont(0.9) WITHIN GROUP (ORDER BY setup_us) AS p90,
                   max(setup_us) AS max, sum(syn_retransmits) AS syn_retransmits
            FROM flow_summary GROUP BY vantage, server ORDER BY flows DESC, vantage, server""";

    private static void setupPerService(Db db, PrintStream out) {
        out.println();
        out.println("connection setup time per service (SYN → handshake ACK):");
        out.printf(
                Locale.ROOT,
                "  %-22s %-24s %6s %10s %12s %12s %12s %8s%n",
                "vantage",
                "service",
                "flows",
                "handshakes",
                "p50",
                "p90",
                "max",
                "SYN rtx");
        for (Map<String, Object> r : db.query(SETUP_PER_SERVICE + " LIMIT ?", TOP)) {
            out.printf(
                    Locale.ROOT,
                    "  %-22s %-24s %6d %10d %12s %12s %12s %8d%n",
                    Db.s(r, "vantage"),
                    Db.s(r, "server"),
                    Db.l(r, "flows"),
                    Db.l(r, "handshakes"),
                    ms(Db.d(r, "p50")),
                    ms(Db.d(r, "p90")),
                    ms(Db.d(r, "max")),
                    Db.l(r, "syn_retransmits"));
        }
    }

    /**
     * OpenVPN setup time per server over every session (the reliability-layer table: sample sd,
     * nearest-rank percentiles, as {@code analyze --services}; docs/metrics.md), with the
     * control-channel retransmissions per setup and, for proto tcp, the TCP ones apart.
     */
    private static void openVpn(Db db, PrintStream out) {
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, server, count(*) AS sessions, count(setup_us) AS completed,
                       avg(setup_us)::float8 AS mean, stddev_samp(setup_us)::float8 AS sd,
                       (percentile_disc(0.5) WITHIN GROUP (ORDER BY setup_us))::float8 AS p50,
                       (percentile_disc(0.99) WITHIN GROUP (ORDER BY setup_us))::float8 AS p99,
                       sum(c2s_retransmits + s2c_retransmits)::float8 / count(*) AS rtx,
                       sum(c2s_tcp_retransmits + s2c_tcp_retransmits)::float8 / count(*) AS tcp_rtx
                FROM openvpn_sessions GROUP BY vantage, server ORDER BY vantage, server""");
        if (rows.isEmpty()) {
            return;
        }
        out.println();
        out.println("OpenVPN setup time per server (client's first hard reset → first data packet):");
        out.printf(
                Locale.ROOT,
                "  %-22s %-22s %8s %9s %12s %12s %12s %12s %10s %10s%n",
                "vantage",
                "server",
                "sessions",
                "completed",
                "mean",
                "sd",
                "p50",
                "p99",
                "rtx/setup",
                "tcp rtx/setup");
        for (Map<String, Object> r : rows) {
            out.printf(
                    Locale.ROOT,
                    "  %-22s %-22s %8d %9d %12s %12s %12s %12s %10.2f %10.2f%n",
                    Db.s(r, "vantage"),
                    Db.s(r, "server"),
                    Db.l(r, "sessions"),
                    Db.l(r, "completed"),
                    ms(Db.d(r, "mean")),
                    ms(Db.d(r, "sd")),
                    ms(Db.d(r, "p50")),
                    ms(Db.d(r, "p99")),
                    Db.d(r, "rtx"),
                    Db.d(r, "tcp_rtx"));
        }
    }

    private static void conntrack(Db db, PrintStream out) {
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, sum(events) AS events, sum(exact_bytes) AS exact_bytes,
                       max(peak_burst_100ms) AS peak_100ms, max(buffer_needed_bytes) AS needed,
                       max(buffer_configured_bytes) AS configured, max(drain_latency_ms) AS drain_ms,
                       sum(enobufs_predicted) AS enobufs_predicted, max(enobufs_risk) AS risk
                FROM conntrack_budgets WHERE window_size_ms = 60000 GROUP BY vantage ORDER BY vantage""");
        out.println();
        out.println("conntrack budget (1 min windows):");
        if (rows.isEmpty()) {
            out.println("  no conntrack events");
        }
        for (Map<String, Object> r : rows) {
            out.printf(
                    Locale.ROOT,
                    "  %-22s %,6d events, %,9d B exact; peak %,d B per 100 ms; buffer needed %,d B at %s ms drain"
                            + " latency vs %,d B configured; ENOBUFS predicted %d (%s)%n",
                    Db.s(r, "vantage"),
                    Db.l(r, "events"),
                    Db.l(r, "exact_bytes"),
                    Db.l(r, "peak_100ms"),
                    Db.l(r, "needed"),
                    num(Db.d(r, "drain_ms")),
                    Db.l(r, "configured"),
                    Db.l(r, "enobufs_predicted"),
                    Db.s(r, "risk"));
        }
    }

    private static void deadLetters(Db db, PrintStream out) {
        List<Map<String, Object>> rows = db.query(
                "SELECT stage, reason, count(*) AS n FROM dead_letters GROUP BY stage, reason ORDER BY n DESC LIMIT 10");
        long total = db.count("SELECT count(*) FROM dead_letters");
        out.println();
        out.printf(Locale.ROOT, "dead letters: %,d%n", total);
        for (Map<String, Object> r : rows) {
            out.printf(Locale.ROOT, "  %,6d %s %s%n", Db.l(r, "n"), Db.s(r, "stage"), Db.s(r, "reason"));
        }
    }

    /** Microseconds (setup_us) in milliseconds with the unit: "16,381.3 ms" rather than a bare "16,381,318". */
    private static String ms(Double us) {
        return us == null ? "-" : String.format(Locale.ROOT, "%,.1f ms", us / 1000.0);
    }

    private static String num(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }
}
