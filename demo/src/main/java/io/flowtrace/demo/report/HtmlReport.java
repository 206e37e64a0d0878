package io.flowtrace.demo.report;

import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.TcpFlowEvent;
import io.flowtrace.demo.Capture;
import io.flowtrace.demo.Db;
import io.flowtrace.demo.DemoSummary;
import io.flowtrace.demo.report.Svg.Series;
import io.flowtrace.demo.report.Svg.Style;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --report DIR}: one self-contained {@code index.html} (inline CSS and SVG, no script, no
 * network). Each chart says where its data comes from: the sink tables in PostgreSQL, or, for the
 * per-packet and per-round charts of the worst flows, the capture file read again and core's offline
 * analyser (the tables keep no per-packet or per-round rows).
 */
public final class HtmlReport {
    static final String[] CLASSES = {"RTO", "FAST", "SPURIOUS", "TLP", "OTHER"};
    static final String[] CLASS_COLORS = {"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#7f7f7f"};
    static final int WORST_FLOWS = 3;

    private final Db db;
    private final Map<String, Capture> captureByAgent = new LinkedHashMap<>();
    private final StringBuilder html = new StringBuilder(1 << 20);
    private int charts;

    public HtmlReport(Db db, List<Capture> captures) {
        this.db = db;
        for (Capture c : captures) {
            captureByAgent.put(c.agentId(), c);
        }
    }

    /** Writes DIR/index.html; returns its path. */
    public Path write(Path dir) throws Exception {
        Files.createDirectories(dir);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>flowtrace demo report</title>\n")
                .append("<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
                        + "figure{margin:0}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}.charts{display:flex;flex-wrap:wrap;gap:12px}"
                        + ".src{color:#555;font-size:12px}table{border-collapse:collapse;font-size:12px}"
                        + "td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
                        + "</style></head><body>\n");
        html.append("<h1>flowtrace demo report</h1>\n<p class=\"src\">Generated ").append(Instant.now())
                .append(" by <code>./flowtrace demo --report</code>. Inputs: ");
        for (Capture c : captureByAgent.values()) {
            html.append("<code>").append(Svg.esc(c.file().getFileName().toString())).append("</code> (")
                    .append(Svg.esc(c.what())).append("); ");
        }
        html.append("</p>\n");
        totals();
        worstFlows();
        retransmissionTimeline();
        setupHistograms();
        slowStartScatter();
        conntrack();
        html.append("</body></html>\n");
        Path page = dir.resolve("index.html");
        Files.writeString(page, html, StandardCharsets.UTF_8);
        return page;
    }

    /** Charts written (the test checks the page has them all). */
    public int charts() {
        return charts;
    }

    private void totals() {
        Map<String, Object> t = db.query("""
                SELECT count(*) AS flows, coalesce(sum(c2s_packets + s2c_packets), 0) AS packets,
                       coalesce(sum(c2s_retransmitted_packets + s2c_retransmitted_packets), 0) AS retransmits,
                       (SELECT count(*) FROM tcp_events) AS events, (SELECT count(*) FROM dead_letters) AS dead
                FROM flow_summary""").get(0);
        html.append(String.format(Locale.ROOT, "<p>%,d flows, %,d packets, %,d retransmitted packets, %,d TCP events, %,d dead letters"
                + " (PostgreSQL <code>flow_summary</code>, <code>tcp_events</code>, <code>dead_letters</code>).</p>%n",
                Db.l(t, "flows"), Db.l(t, "packets"), Db.l(t, "retransmits"), Db.l(t, "events"), Db.l(t, "dead")));
    }

    private void worstFlows() throws Exception {
        html.append("<h2>Worst flows: time-sequence and flight per round</h2>\n<p class=\"src\">At each vantage point"
                + " the flow with the most retransmissions in <code>flow_summary</code> (at most three). Left: the sender's data segments (ticks) and the receiver's"
                + " cumulative ACK (line), sequence numbers relative to the ISN, read again from the capture file;"
                + " retransmissions (points, by class) from core's offline analyser over the same file. Right: the"
                + " largest flight of each RTT round (core's cwnd estimate, <code>analyze --events</code> round events),"
                + " with the slow-start exit and the BDP of the flow's report.</p>\n");
        List<Map<String, Object>> worst = db.query("""
                SELECT vantage, client, server, instance, report::text AS report,
                       (extract(epoch FROM first_seen) * 1000000)::bigint AS first_us,
                       (extract(epoch FROM last_seen) * 1000000)::bigint AS last_us,
                       c2s_data_bytes, s2c_data_bytes, c2s_retransmitted_packets + s2c_retransmitted_packets AS rtx,
                       (report -> 'c2s' -> 'slow_start' ->> 'bdp_bytes')::bigint AS c2s_bdp,
                       (report -> 's2c' -> 'slow_start' ->> 'bdp_bytes')::bigint AS s2c_bdp
                FROM flow_summary WHERE c2s_retransmitted_packets + s2c_retransmitted_packets > 0
                ORDER BY rtx DESC, first_seen""");
        int shown = 0;
        java.util.Set<String> vantages = new java.util.HashSet<>();
        for (Map<String, Object> f : worst) {
            String vantage = Db.s(f, "vantage");
            Capture capture = captureByAgent.get(VantagePoint.parse(vantage).agentId());
            if (capture == null || shown >= WORST_FLOWS || !vantages.add(vantage)) {
                continue;
            }
            boolean senderIsClient = Db.l(f, "c2s_data_bytes") >= Db.l(f, "s2c_data_bytes");
            // first_seen/last_seen are microseconds; the row is the authority on the instance's span
            FlowDetail d = FlowDetail.read(capture.file(), capture.agentId(), Db.s(f, "client"), Db.s(f, "server"),
                    Db.l(f, "instance"), Db.l(f, "first_us"), Db.l(f, "last_us"), senderIsClient);
            String name = Db.s(f, "client") + " → " + Db.s(f, "server") + " (" + vantage + ", " + Db.l(f, "rtx") + " retransmissions)";
            html.append("<h3>").append(Svg.esc(name)).append("</h3>\n<div class=\"charts\">\n");
            List<Series> seq = new ArrayList<>();
            seq.add(series("data segments", "#444", d.data, Style.SEGMENTS));
            seq.add(series("cumulative ACK", "#2ca02c", d.acks, Style.STEP));
            for (int c = 0; c < CLASSES.length; c++) {
                List<double[]> pts = new ArrayList<>();
                for (TcpFlowEvent.Retransmission r : d.retransmissions) {
                    if (r.retransmissionClass().name().equals(CLASSES[c])) {
                        pts.add(new double[] {d.seconds(r.timeNanos()), r.seq()});
                    }
                }
                if (!pts.isEmpty()) {
                    seq.add(series("retransmission " + CLASSES[c].toLowerCase(Locale.ROOT), CLASS_COLORS[c], pts, Style.POINTS));
                }
            }
            chart(Svg.xy("time-sequence (" + (senderIsClient ? "client → server" : "server → client") + ")",
                    "seconds since the flow's first packet", "relative sequence (bytes)", seq));
            List<double[]> flight = new ArrayList<>();
            for (TcpFlowEvent.Round r : d.rounds) {
                flight.add(new double[] {r.index(), r.flightBytes()});
            }
            List<Series> rounds = new ArrayList<>();
            rounds.add(series("flight per round (bytes)", "#1f77b4", flight, Style.LINE));
            long bdp = Db.l(f, senderIsClient ? "c2s_bdp" : "s2c_bdp");
            if (!flight.isEmpty() && bdp > 0) {
                double last = flight.get(flight.size() - 1)[0];
                rounds.add(new Series("BDP " + bdp + " B", "#9467bd", new double[] {0, last}, new double[] {bdp, bdp}, Style.LINE));
            }
            if (d.exit != null && !flight.isEmpty()) {
                int idx = 0;
                for (TcpFlowEvent.Round r : d.rounds) {
                    if (r.timeNanos() <= d.exit.timeNanos()) {
                        idx = r.index();
                    }
                }
                rounds.add(new Series("slow-start exit (" + d.exit.reason().name().toLowerCase(Locale.ROOT) + ", "
                        + d.exit.cwndBytes() + " B)", "#d62728", new double[] {idx}, new double[] {d.exit.cwndBytes()}, Style.POINTS));
            }
            chart(Svg.xy("cwnd estimate: flight per RTT round", "round", "bytes in flight", rounds));
            html.append("</div>\n");
            shown++;
        }
        if (shown == 0) {
            html.append("<p>No flow retransmitted.</p>\n");
        }
    }

    private void retransmissionTimeline() {
        html.append("<h2>Retransmissions over time, by class</h2>\n<p class=\"src\">PostgreSQL <code>tcp_events</code>"
                + " (kind RETRANSMISSION, class as the job classified it), per vantage point, 30 equal time buckets over"
                + " the vantage's span of retransmissions.</p>\n<div class=\"charts\">\n");
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, retransmit_class AS class, extract(epoch FROM event_time)::double precision AS t
                FROM tcp_events WHERE kind = 'RETRANSMISSION' ORDER BY vantage, event_time""");
        Map<String, List<Map<String, Object>>> byVantage = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            byVantage.computeIfAbsent(Db.s(r, "vantage"), k -> new ArrayList<>()).add(r);
        }
        int buckets = 30;
        for (Map.Entry<String, List<Map<String, Object>>> e : byVantage.entrySet()) {
            double t0 = Db.d(e.getValue().get(0), "t");
            double t1 = Db.d(e.getValue().get(e.getValue().size() - 1), "t");
            double width = Math.max(1e-3, (t1 - t0) / buckets);
            double[][] counts = new double[CLASSES.length][buckets];
            for (Map<String, Object> r : e.getValue()) {
                int b = Math.min(buckets - 1, (int) ((Db.d(r, "t") - t0) / width));
                for (int c = 0; c < CLASSES.length; c++) {
                    if (CLASSES[c].equals(Db.s(r, "class"))) {
                        counts[c][b]++;
                    }
                }
            }
            List<String> labels = new ArrayList<>();
            for (int b = 0; b < buckets; b++) {
                labels.add(String.format(Locale.ROOT, width < 0.05 ? "%.3f" : width < 0.5 ? "%.2f" : "%.1f", b * width));
            }
            chart(Svg.stackedBars(e.getKey() + ": " + e.getValue().size() + " retransmissions",
                    "seconds since the first retransmission (bucket start)", "retransmissions", labels,
                    lower(CLASSES), List.of(CLASS_COLORS), counts));
        }
        if (byVantage.isEmpty()) {
            html.append("<p>No retransmissions.</p>\n");
        }
        html.append("</div>\n");
    }

    /** Log-spaced setup-time bins (µs): a SYN retransmission moves a connection by a whole second. */
    static final double[] SETUP_BINS = {0, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000,
        10_000_000};
    static final String[] SETUP_LABELS = {"<0.1ms", "<0.3ms", "<1ms", "<3ms", "<10ms", "<30ms", "<0.1s", "<0.3s", "<1s", "<3s",
        "<10s", "≥10s"};

    private void setupHistograms() {
        html.append("<h2>Connection setup time per service</h2>\n<p class=\"src\">PostgreSQL <code>flow_summary.setup_us</code>"
                + " (first SYN → the ACK of the SYN-ACK) grouped by vantage and server (the four services with the most"
                + " flows), with the SYN retransmissions of <code>flow_summary.syn_retransmits</code>.</p>\n<div class=\"charts\">\n");
        List<Map<String, Object>> services = db.query(DemoSummary.SETUP_PER_SERVICE + " LIMIT 4");
        for (Map<String, Object> s : services) {
            List<Map<String, Object>> rows = db.query("SELECT setup_us, syn_retransmits FROM flow_summary"
                    + " WHERE vantage = ? AND server = ? AND setup_us IS NOT NULL", Db.s(s, "vantage"), Db.s(s, "server"));
            double[][] counts = new double[2][SETUP_LABELS.length];
            for (Map<String, Object> r : rows) {
                double us = Db.d(r, "setup_us");
                int b = SETUP_LABELS.length - 1;
                for (int i = 1; i < SETUP_BINS.length; i++) {
                    if (us < SETUP_BINS[i]) {
                        b = i - 1;
                        break;
                    }
                }
                counts[Db.l(r, "syn_retransmits") > 0 ? 1 : 0][b]++;
            }
            chart(Svg.stackedBars(Db.s(s, "server") + " at " + Db.s(s, "vantage") + ": " + rows.size() + " handshakes",
                    "setup time", "connections", List.of(SETUP_LABELS), List.of("no SYN retransmission", "SYN retransmitted"),
                    List.of("#1f77b4", "#d62728"), counts));
        }
        html.append("</div>\n");
    }

    private void slowStartScatter() {
        html.append("<h2>Slow-start exit cwnd vs BDP</h2>\n<p class=\"src\">From the <code>flow_summary.report</code> jsonb"
                + " (the <code>analyze --json</code> object): per direction that left slow start, the exit cwnd"
                + " (<code>slow_start.exit_cwnd_bytes</code>) against the path's BDP (<code>slow_start.bdp_bytes</code> ="
                + " max delivery rate × min RTT). Premature exits (below half the BDP or half a later round's flight) in red;"
                + " the line is cwnd = BDP.</p>\n<div class=\"charts\">\n");
        List<Map<String, Object>> rows = db.query("SELECT * FROM (" + DemoSummary.SLOW_START_EXITS + ") x WHERE bdp_bytes > 0");
        List<double[]> ok = new ArrayList<>();
        List<double[]> premature = new ArrayList<>();
        double max = 1;
        for (Map<String, Object> r : rows) {
            double[] p = {Db.l(r, "bdp_bytes"), Db.l(r, "cwnd_bytes")};
            max = Math.max(max, Math.max(p[0], p[1]));
            (Boolean.TRUE.equals(r.get("premature")) ? premature : ok).add(p);
        }
        List<Series> s = new ArrayList<>();
        s.add(new Series("cwnd = BDP", "#bbbbbb", new double[] {0, max}, new double[] {0, max}, Style.LINE));
        s.add(series("exit (" + ok.size() + ")", "#1f77b4", ok, Style.POINTS));
        s.add(series("premature exit (" + premature.size() + ")", "#d62728", premature, Style.POINTS));
        chart(Svg.xy(rows.size() + " slow-start exits", "BDP (bytes)", "exit cwnd (bytes)", s));
        html.append("</div>\n");
    }

    private void conntrack() {
        html.append("<h2>Conntrack events and receive-buffer budget</h2>\n<p class=\"src\">PostgreSQL"
                + " <code>conntrack_budgets</code>, 1 s windows: events per second, and the buffer a listener needs (largest"
                + " truesize sum within its drain latency) against the buffer it requested (<code>buffer_configured_bytes</code>)"
                + " and what the kernel grants (<code>buffer_effective_bytes</code>, twice the request).</p>\n<div class=\"charts\">\n");
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, extract(epoch FROM window_start)::double precision AS t, events_per_second,
                       buffer_needed_bytes, buffer_configured_bytes, buffer_effective_bytes
                FROM conntrack_budgets WHERE window_size_ms = 1000 ORDER BY vantage, window_start""");
        Map<String, List<Map<String, Object>>> byVantage = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            byVantage.computeIfAbsent(Db.s(r, "vantage"), k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Map<String, Object>>> e : byVantage.entrySet()) {
            double t0 = Db.d(e.getValue().get(0), "t");
            int n = e.getValue().size();
            double[] x = new double[n];
            double[] rate = new double[n];
            double[] needed = new double[n];
            double[] configured = new double[n];
            double[] effective = new double[n];
            for (int i = 0; i < n; i++) {
                Map<String, Object> r = e.getValue().get(i);
                x[i] = Db.d(r, "t") - t0;
                rate[i] = Db.d(r, "events_per_second");
                needed[i] = Db.l(r, "buffer_needed_bytes");
                configured[i] = Db.l(r, "buffer_configured_bytes");
                effective[i] = Db.l(r, "buffer_effective_bytes");
            }
            Style style = n == 1 ? Style.POINTS : Style.LINE;
            chart(Svg.xy(e.getKey() + ": events per second", "seconds (1 s windows)", "events/s",
                    List.of(new Series("events/s", "#1f77b4", x, rate, style))));
            chart(Svg.xy(e.getKey() + ": receive buffer", "seconds (1 s windows)", "bytes", List.of(
                    new Series("needed", "#d62728", x, needed, style),
                    new Series("configured (requested)", "#7f7f7f", x, configured, style),
                    new Series("effective (kernel)", "#2ca02c", x, effective, style))));
        }
        if (byVantage.isEmpty()) {
            html.append("<p>No conntrack events in this run (the bundled recordings replay only without --pcap).</p>\n");
        }
        html.append("</div>\n");
    }

    private void chart(String svg) {
        html.append("<figure>").append(svg).append("</figure>\n");
        charts++;
    }

    private static Series series(String name, String color, List<double[]> points, Style style) {
        double[] x = new double[points.size()];
        double[] y = new double[points.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = points.get(i)[0];
            y[i] = points.get(i)[1];
        }
        return new Series(name, color, x, y, style);
    }

    private static List<String> lower(String[] names) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            out.add(n.toLowerCase(Locale.ROOT));
        }
        return out;
    }
}
