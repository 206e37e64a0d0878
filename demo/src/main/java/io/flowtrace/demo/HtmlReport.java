package io.flowtrace.demo;

import io.flowtrace.cli.report.Chart;
import io.flowtrace.cli.report.Chart.Series;
import io.flowtrace.cli.report.Chart.Style;
import io.flowtrace.cli.report.FlowGraph;
import io.flowtrace.cli.report.InteractiveReport;
import io.flowtrace.cli.report.Section;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code --report DIR}: one self-contained {@code index.html}, the same interactive uPlot page as
 * {@code analyze --report} (InteractiveReport: zoomable, no network needed). Each section says where
 * its data comes from: the sink tables in PostgreSQL, or, for the graphs of the worst flows, the
 * capture file read again by core's offline analyser (the tables keep no per-packet or per-round rows).
 */
public final class HtmlReport {
    static final String[] CLASSES = {"RTO", "FAST", "SPURIOUS", "TLP", "OTHER"};
    static final String[] CLASS_COLORS = {"#d62728", "#ff7f0e", "#7f7f7f", "#9467bd", "#8c564b"};
    static final int WORST_FLOWS = 3;

    private final Db db;
    private final Map<String, Capture> captureByAgent = new LinkedHashMap<>();
    private final List<Section> sections = new ArrayList<>();
    private int charts;

    public HtmlReport(Db db, List<Capture> captures) {
        this.db = db;
        for (Capture c : captures) {
            captureByAgent.put(c.agentId(), c);
        }
    }

    /** Writes DIR/index.html; returns its path. */
    public Path write(Path dir) throws Exception {
        StringBuilder intro = new StringBuilder("<p class=\"note\">Generated ")
                .append(Instant.now())
                .append(" by <code>./flowtrace demo --report</code>. Inputs: ");
        for (Capture c : captureByAgent.values()) {
            intro.append("<code>")
                    .append(esc(c.file().getFileName().toString()))
                    .append("</code> (")
                    .append(esc(c.what()))
                    .append("); ");
        }
        intro.append("</p>\n").append(totals());
        worstFlows();
        retransmissionTimeline();
        setupHistograms();
        slowStartScatter();
        conntrack();
        return InteractiveReport.write(dir.resolve("index.html"), "flowtrace demo report", intro.toString(), sections);
    }

    /** Charts written, the flows' graphs counted as one each (the test checks the page draws them all). */
    public int charts() {
        return charts;
    }

    private String totals() {
        Map<String, Object> t = db.query("""
                SELECT count(*) AS flows, coalesce(sum(c2s_packets + s2c_packets), 0) AS packets,
                       coalesce(sum(c2s_retransmitted_packets + s2c_retransmitted_packets), 0) AS retransmits,
                       (SELECT count(*) FROM tcp_events) AS events, (SELECT count(*) FROM dead_letters) AS dead
                FROM flow_summary""").get(0);
        return String.format(
                Locale.ROOT,
                "<p>%,d flows, %,d packets, %,d retransmitted packets, %,d TCP events, %,d dead letters"
                        + " (PostgreSQL <code>flow_summary</code>, <code>tcp_events</code>, <code>dead_letters</code>).</p>%n",
                Db.l(t, "flows"),
                Db.l(t, "packets"),
                Db.l(t, "retransmits"),
                Db.l(t, "events"),
                Db.l(t, "dead"));
    }

    private void worstFlows() throws Exception {
        String note =
                "At each vantage point the flow with the most retransmissions in <code>flow_summary</code> (at most"
                        + " three), drawn as <code>analyze --report</code> draws a flow: its packets read again from the capture"
                        + " file and core's offline analyser run again over it (time-sequence with the ACK and receive-window lines,"
                        + " SACK blocks and retransmissions by class; bytes in flight with the cwnd estimate per RTT round; RTT per"
                        + " round), all on the flow's time axis.";
        Map<Capture, List<FlowGraph.FlowId>> wanted = worstPerVantage();
        List<FlowGraph> graphs = new ArrayList<>();
        for (Map.Entry<Capture, List<FlowGraph.FlowId>> e : wanted.entrySet()) {
            Path file = e.getKey().file();
            String agent = e.getKey().agentId();
            graphs.addAll(
                    FlowGraph.read(file, agent, FlowGraph.find(file, agent, e.getValue()), CaptureRecordFilter.ALL));
        }
        charts += graphs.size();
        sections.add(new Section(
                "Worst flows: time-sequence, flight and cwnd per round, RTT",
                graphs.isEmpty() ? note + " No flow retransmitted." : note,
                graphs,
                List.of()));
    }

    /**
     * The flow with the most retransmissions at each vantage point whose capture the demo has, at
     * most {@link #WORST_FLOWS} in all, grouped by capture file.
     */
    private Map<Capture, List<FlowGraph.FlowId>> worstPerVantage() throws Exception {
        List<Map<String, Object>> worst = db.query("""
                SELECT vantage, client, server, instance, c2s_retransmitted_packets + s2c_retransmitted_packets AS rtx
                FROM flow_summary WHERE c2s_retransmitted_packets + s2c_retransmitted_packets > 0
                ORDER BY rtx DESC, first_seen""");
        Map<Capture, List<FlowGraph.FlowId>> wanted = new LinkedHashMap<>();
        Set<String> vantages = new HashSet<>();
        int shown = 0;
        for (Map<String, Object> f : worst) {
            String vantage = Db.s(f, "vantage");
            Capture capture = captureByAgent.get(VantagePoint.parse(vantage).agentId());
            if (capture == null || shown >= WORST_FLOWS || !vantages.add(vantage)) {
                continue;
            }
            String title = Db.s(f, "client") + " → " + Db.s(f, "server") + " (" + vantage + ", " + Db.l(f, "rtx")
                    + " retransmissions)";
            wanted.computeIfAbsent(capture, c -> new ArrayList<>())
                    .add(new FlowGraph.FlowId(
                            vantage, Db.s(f, "client"), Db.s(f, "server"), Db.l(f, "instance"), title));
            shown++;
        }
        return wanted;
    }

    private void retransmissionTimeline() {
        String note =
                "PostgreSQL <code>tcp_events</code> (kind RETRANSMISSION, class as the job classified it), per vantage"
                        + " point, 30 equal time buckets over the vantage's span of retransmissions.";
        List<Chart> list = new ArrayList<>();
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, retransmit_class AS class, extract(epoch FROM event_time)::double precision AS t
                FROM tcp_events WHERE kind = 'RETRANSMISSION' ORDER BY vantage, event_time""");
        Map<String, List<Map<String, Object>>> byVantage = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            byVantage
                    .computeIfAbsent(Db.s(r, "vantage"), k -> new ArrayList<>())
                    .add(r);
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
                labels.add(
                        String.format(Locale.ROOT, width < 0.05 ? "%.3f" : width < 0.5 ? "%.2f" : "%.1f", b * width));
            }
            list.add(Chart.stackedBars(
                    e.getKey() + ": " + e.getValue().size() + " retransmissions",
                    "seconds since the first retransmission (bucket start)",
                    "retransmissions",
                    labels,
                    lower(CLASSES),
                    List.of(CLASS_COLORS),
                    counts));
        }
        add("Retransmissions over time, by class", byVantage.isEmpty() ? note + " No retransmissions." : note, list);
    }

    /** Log-spaced setup-time bins (µs): a SYN retransmission moves a connection by a whole second. */
    static final double[] SETUP_BINS = {
        0, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000
    };

    static final String[] SETUP_LABELS = {
        "<0.1ms", "<0.3ms", "<1ms", "<3ms", "<10ms", "<30ms", "<0.1s", "<0.3s", "<1s", "<3s", "<10s", "≥10s"
    };

    private void setupHistograms() {
        String note =
                "PostgreSQL <code>flow_summary.setup_us</code> (first SYN → the ACK of the SYN-ACK) grouped by vantage"
                        + " and server (the four services with the most flows), with the SYN retransmissions of"
                        + " <code>flow_summary.syn_retransmits</code>.";
        List<Chart> list = new ArrayList<>();
        List<Map<String, Object>> services = db.query(DemoSummary.SETUP_PER_SERVICE + " LIMIT 4");
        for (Map<String, Object> s : services) {
            List<Map<String, Object>> rows = db.query(
                    "SELECT setup_us, syn_retransmits FROM flow_summary"
                            + " WHERE vantage = ? AND server = ? AND setup_us IS NOT NULL",
                    Db.s(s, "vantage"),
                    Db.s(s, "server"));
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
            list.add(Chart.stackedBars(
                    Db.s(s, "server") + " at " + Db.s(s, "vantage") + ": " + rows.size() + " handshakes",
                    "setup time",
                    "connections",
                    List.of(SETUP_LABELS),
                    List.of("no SYN retransmission", "SYN retransmitted"),
                    List.of("#1f77b4", "#d62728"),
                    counts));
        }
        add("Connection setup time per service", note, list);
    }

    private void slowStartScatter() {
        String note =
                "From the <code>flow_summary.report</code> jsonb (the <code>analyze --json</code> object): per direction"
                        + " that left slow start, the exit cwnd (<code>slow_start.exit_cwnd_bytes</code>) against the path's BDP"
                        + " (<code>slow_start.bdp_bytes</code> = max delivery rate × min RTT). Premature exits (below half the BDP or"
                        + " half a later round's flight) in red; the line is cwnd = BDP. An exit without a BDP"
                        + " estimate (no delivery-rate sample before it) counts in the title, as in the summary, but has"
                        + " no point.";
        List<Map<String, Object>> rows =
                db.query("SELECT * FROM (" + DemoSummary.SLOW_START_EXITS + ") x WHERE bdp_bytes > 0");
        // the summary's count: every exit, with a BDP estimate or not (the plot had 42 where it said 47)
        long total = db.count("SELECT count(*) FROM (" + DemoSummary.SLOW_START_EXITS + ") x");
        List<Map<String, Object>> ok = new ArrayList<>();
        List<Map<String, Object>> premature = new ArrayList<>();
        double max = 1;
        for (Map<String, Object> r : rows) {
            max = Math.max(max, Math.max(Db.l(r, "bdp_bytes"), Db.l(r, "cwnd_bytes")));
            (Boolean.TRUE.equals(r.get("premature")) ? premature : ok).add(r);
        }
        List<Series> s = new ArrayList<>();
        s.add(new Series("cwnd = BDP", "#bbbbbb", Style.LINE, new double[] {0, max}, new double[] {0, max}));
        s.add(exits("exit (" + ok.size() + ")", "#1f77b4", ok));
        s.add(exits("premature exit (" + premature.size() + ")", "#d62728", premature));
        add(
                "Slow-start exit cwnd vs BDP",
                note,
                List.of(Chart.xy(
                        total + " slow-start exits"
                                + (total == rows.size()
                                        ? ""
                                        : ", " + (total - rows.size()) + " without a BDP not plotted"),
                        "BDP (bytes)",
                        "exit cwnd (bytes)",
                        s)));
    }

    private void conntrack() {
        long windowMs = db.query("SELECT coalesce(min(window_size_ms), 1000) AS ms FROM conntrack_budgets").stream()
                .mapToLong(r -> Db.l(r, "ms"))
                .findFirst()
                .orElse(1000);
        String windows = windowMs % 1000 == 0 ? (windowMs / 1000) + " s windows" : windowMs + " ms windows";
        String note = "PostgreSQL <code>conntrack_budgets</code>, " + windows + " (the shortest the job wrote):"
                + " events per second, and the buffer a listener"
                + " needs (largest truesize sum within its drain latency) against the buffer it requested"
                + " (<code>buffer_configured_bytes</code>) and what the kernel grants (<code>buffer_effective_bytes</code>,"
                + " twice the request).";
        List<Chart> list = new ArrayList<>();
        List<Map<String, Object>> rows = db.query("""
                SELECT vantage, extract(epoch FROM window_start)::double precision AS t, events_per_second,
                       buffer_needed_bytes, buffer_configured_bytes, buffer_effective_bytes
                FROM conntrack_budgets WHERE window_size_ms = ? ORDER BY vantage, window_start""", windowMs);
        Map<String, List<Map<String, Object>>> byVantage = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            byVantage
                    .computeIfAbsent(Db.s(r, "vantage"), k -> new ArrayList<>())
                    .add(r);
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
            list.add(Chart.xy(
                    e.getKey() + ": events per second",
                    "seconds (" + windows + ")",
                    "events/s",
                    List.of(new Series("events/s", "#1f77b4", style, x, rate))));
            list.add(Chart.xy(
                    e.getKey() + ": receive buffer",
                    "seconds (" + windows + ")",
                    "bytes",
                    List.of(
                            new Series("needed", "#d62728", style, x, needed),
                            new Series("configured (requested)", "#7f7f7f", style, x, configured),
                            new Series("effective (kernel)", "#2ca02c", style, x, effective))));
        }
        add(
                "Conntrack events and receive-buffer budget",
                byVantage.isEmpty()
                        ? note + " No conntrack events in this run (the bundled recordings replay only without --pcap)."
                        : note,
                list);
    }

    private void add(String heading, String note, List<Chart> list) {
        sections.add(new Section(heading, note, List.of(), list));
        charts += list.size();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Slow-start exits as points (BDP, exit cwnd), each named by its flow and direction for the hover legend. */
    private static Series exits(String label, String colour, List<Map<String, Object>> rows) {
        double[] x = new double[rows.size()];
        double[] y = new double[rows.size()];
        String[] names = new String[rows.size()];
        for (int i = 0; i < x.length; i++) {
            Map<String, Object> r = rows.get(i);
            x[i] = Db.l(r, "bdp_bytes");
            y[i] = Db.l(r, "cwnd_bytes");
            names[i] =
                    Db.s(r, "client") + " → " + Db.s(r, "server") + " " + Db.s(r, "dir") + " at " + Db.s(r, "vantage");
        }
        return Series.named(label, colour, Style.POINTS, x, y, names);
    }

    private static List<String> lower(String[] names) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            out.add(n.toLowerCase(Locale.ROOT));
        }
        return out;
    }
}
