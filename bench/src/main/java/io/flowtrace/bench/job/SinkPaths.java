package io.flowtrace.bench.job;

import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.avro.mapping.TcpEvents;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.flow.FlowRowLayout;
import io.flowtrace.jobs.flow.FlowRowWriter;
import io.flowtrace.jobs.output.ColumnValues;
import io.flowtrace.jobs.output.PostgresRows;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.jobs.output.Upsert;
import io.flowtrace.report.FlowFields;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;

/**
 * The PostgreSQL write paths of the sinks, side by side on the same rows against testkit's embedded
 * PostgreSQL (docs/BENCHMARKS.md "### Sink write paths"): rows/s of tcp_events and flow_summary
 * rows written in batches as (a) today's JDBC batch of single-row upserts, (b) the same statements
 * with pgjdbc's {@code reWriteBatchedInserts=true} (multi-row VALUES), (c) for the append-only
 * tcp_events, {@code COPY FROM STDIN} straight into the table and through a staging table with
 * {@code INSERT ... SELECT ... ON CONFLICT DO NOTHING} (the idempotent form a replay needs). Every
 * run starts on an empty table, commits per batch (autocommit, as the connector) and checks the
 * row count afterwards.
 *
 * <p>Rows: flow_summary from {@code join/client.pcap} (short connections), tcp_events from
 * {@code tcp/cubic-loss.sender.pcap.gz}, replicated with distinct instances up to {@code --rows}.
 * Usage: {@code java -cp ... io.flowtrace.bench.job.SinkPaths [--rows 20000] [--batch 500] [--runs 3]};
 * lines starting with SINKPATHS are the results.
 */
public final class SinkPaths {
    private SinkPaths() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new TreeMap<>(Map.of("rows", "20000", "batch", "500", "runs", "3"));
        for (int i = 0; i + 1 < argv.length; i += 2) {
            a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        int rows = Integer.parseInt(a.get("rows"));
        int batch = Integer.parseInt(a.get("batch"));
        int runs = Integer.parseInt(a.get("runs"));
        List<FlowRow> flows = replicate(flowRows("join/client.pcap"), rows, SinkPaths::withInstance);
        List<TcpEvent> events = replicate(tcpEvents("tcp/cubic-loss.sender.pcap.gz"), rows, SinkPaths::withInstance);
        Postgres pg = new Postgres();
        pg.start();
        try {
            for (String resource : PostgresSinks.SCHEMA_RESOURCES) {
                pg.runSqlResource(resource);
            }
            paths(pg.jdbcUrl(), rows, batch, runs, flows, events);
            System.out.println("SINKPATHS load after " + load());
        } finally {
            pg.close();
        }
    }

    private static void paths(String plain, int rows, int batch, int runs, List<FlowRow> flows, List<TcpEvent> events)
            throws Exception {
        String rewrite = plain + (plain.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true";
        Upsert<TcpEvent> eventsDoNothing = keepFirst(PostgresRows.TCP_EVENTS);
        System.out.println(
                "SINKPATHS rows " + rows + ", batch " + batch + ", runs " + runs + "; load before " + load());
        Map<String, Path> paths = new LinkedHashMap<>();
        paths.put(
                "flow_summary (a) batch of single-row upserts",
                () -> batched(plain, PostgresRows.FLOW_SUMMARY, flows, batch));
        paths.put(
                "flow_summary (b) reWriteBatchedInserts",
                () -> batched(rewrite, PostgresRows.FLOW_SUMMARY, flows, batch));
        paths.put(
                "tcp_events (a) batch of single-row upserts",
                () -> batched(plain, PostgresRows.TCP_EVENTS, events, batch));
        paths.put(
                "tcp_events (b) reWriteBatchedInserts", () -> batched(rewrite, PostgresRows.TCP_EVENTS, events, batch));
        paths.put(
                "tcp_events (b') reWriteBatchedInserts, DO NOTHING",
                () -> batched(rewrite, eventsDoNothing, events, batch));
        paths.put(
                "tcp_events (c) COPY into the table", () -> copy(plain, PostgresRows.TCP_EVENTS, events, batch, false));
        paths.put(
                "tcp_events (c') COPY into staging + INSERT ON CONFLICT DO NOTHING",
                () -> copy(plain, PostgresRows.TCP_EVENTS, events, batch, true));
        for (int run = 1; run <= runs; run++) {
            for (Map.Entry<String, Path> p : paths.entrySet()) {
                report(run, p.getKey(), rows, p.getValue().nanos());
            }
        }
    }

    /** One write path: the nanoseconds it took to write every row. */
    private interface Path {
        long nanos() throws Exception;
    }

    private static void report(int run, String path, int rows, long nanos) {
        System.out.printf(Locale.ROOT, "SINKPATHS run %d %-70s %,10.0f rows/s%n", run, path, rows / (nanos / 1e9));
    }

    private static String load() throws Exception {
        return Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
    }

    /** The same table and columns with DO NOTHING instead of DO UPDATE. */
    private static <T> Upsert<T> keepFirst(Upsert<T> u) {
        String[] key =
                u.sql().replaceAll("(?s).*ON CONFLICT \\(([^)]*)\\).*", "$1").split(", ");
        Upsert.Builder<T> b = Upsert.into(u.table(), key);
        for (Upsert.Column<T> c : u.columns()) {
            b.column(c.name(), c.type(), c.nullable(), c.binder());
        }
        return b.keepFirst();
    }

    private static void truncate(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + table);
            st.execute("VACUUM ANALYZE " + table);
        }
    }

    private static void check(Connection c, String table, int rows) throws SQLException {
        try (Statement st = c.createStatement();
                var rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            if (rs.getLong(1) != rows) {
                throw new IllegalStateException(table + " holds " + rs.getLong(1) + " rows, not " + rows);
            }
        }
    }

    /** (a)/(b): the connector's way, a JDBC batch of the single-row statement, executed per {@code batch} rows. */
    private static <T> long batched(String url, Upsert<T> upsert, List<T> rows, int batch) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            truncate(c, upsert.table());
            long started = System.nanoTime();
            try (PreparedStatement st = c.prepareStatement(upsert.sql())) {
                int n = 0;
                for (T r : rows) {
                    upsert.accept(st, r);
                    st.addBatch();
                    if (++n % batch == 0) {
                        st.executeBatch();
                    }
                }
                st.executeBatch();
            }
            long nanos = System.nanoTime() - started;
            check(c, upsert.table(), rows.size());
            return nanos;
        }
    }

    /** (c): COPY in PostgreSQL's text format per {@code batch} rows, straight or through a staging table. */
    private static <T> long copy(String url, Upsert<T> upsert, List<T> rows, int batch, boolean staging)
            throws SQLException, IOException {
        String columns = upsert.columns().stream().map(Upsert.Column::name).collect(Collectors.joining(", "));
        String key = upsert.sql().replaceAll("(?s).*ON CONFLICT \\(([^)]*)\\).*", "$1");
        ColumnValues values = new ColumnValues();
        try (Connection c = DriverManager.getConnection(url)) {
            truncate(c, upsert.table());
            if (staging) {
                try (Statement st = c.createStatement()) {
                    st.execute("CREATE TEMP TABLE IF NOT EXISTS staging_" + upsert.table() + " (LIKE " + upsert.table()
                            + ") ON COMMIT DELETE ROWS");
                }
            }
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            long started = System.nanoTime();
            StringBuilder text = new StringBuilder();
            for (int from = 0; from < rows.size(); from += batch) {
                text.setLength(0);
                for (T r : rows.subList(from, Math.min(rows.size(), from + batch))) {
                    Object[] row = values.row(upsert, r);
                    for (int i = 0; i < row.length; i++) {
                        if (i > 0) {
                            text.append('\t');
                        }
                        appendCopyText(text, row[i]);
                    }
                    text.append('\n');
                }
                if (staging) {
                    c.setAutoCommit(false);
                    copy.copyIn(
                            "COPY staging_" + upsert.table() + " (" + columns + ") FROM STDIN",
                            new StringReader(text.toString()));
                    try (Statement st = c.createStatement()) {
                        st.execute("INSERT INTO " + upsert.table() + " (" + columns + ") SELECT " + columns
                                + " FROM staging_" + upsert.table() + " ON CONFLICT (" + key + ") DO NOTHING");
                    }
                    c.commit();
                    c.setAutoCommit(true);
                } else {
                    copy.copyIn(
                            "COPY " + upsert.table() + " (" + columns + ") FROM STDIN",
                            new StringReader(text.toString()));
                }
            }
            long nanos = System.nanoTime() - started;
            check(c, upsert.table(), rows.size());
            return nanos;
        }
    }

    /** A value in COPY's text format: \N for NULL, backslash escapes for \, tab, newline, CR. */
    private static void appendCopyText(StringBuilder out, Object v) {
        if (v == null) {
            out.append("\\N");
            return;
        }
        String s = v.toString(); // OffsetDateTime's ISO-8601 and Java's doubles are PostgreSQL input
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(ch);
            }
        }
    }

    private interface Copy<T> {
        T withInstance(T row, long instance);
    }

    /** {@code n} rows: the capture's rows again and again, copy k's instances shifted by k × 10^6. */
    private static <T> List<T> replicate(List<T> base, int n, Copy<T> copy) {
        if (base.isEmpty()) {
            throw new IllegalStateException("no rows in the capture");
        }
        List<T> out = new ArrayList<>(n);
        for (int i = 0; out.size() < n; i++) {
            out.add(copy.withInstance(base.get(i % base.size()), (long) (i / base.size()) * 1_000_000L));
        }
        return out;
    }

    private static FlowRow withInstance(FlowRow s, long shift) {
        FlowRow r = new FlowRow();
        r.texts = s.texts;
        r.integers = s.integers.clone();
        r.integers[FlowRowLayout.INSTANCE.slot(FlowFields.INSTANCE, null)] += shift;
        r.nullIntegers = s.nullIntegers;
        r.decimals = s.decimals;
        r.flags = s.flags;
        r.latePackets = s.latePackets;
        r.recordTimeUs = s.recordTimeUs;
        r.finalRecord = s.finalRecord;
        r.reportJson = s.reportJson;
        return r;
    }

    private static TcpEvent withInstance(TcpEvent e, long shift) {
        return TcpEvent.newBuilder(e)
                .setFlow(FlowIdentity.newBuilder(e.getFlow())
                        .setInstance(e.getFlow().getInstance() + shift)
                        .build())
                .build();
    }

    private static CaptureAnalysis analysis() {
        return new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("bench", "if" + iface));
    }

    /** The flow_summary rows as the flow function builds them (FlowRecords.version with a FlowRowWriter). */
    private static List<FlowRow> flowRows(String capture) throws Exception {
        List<FlowRow> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis()
                    .run(
                            in,
                            (key, instance, flow) -> {
                                FlowRowWriter row = new FlowRowWriter(FlowRowLayout.INSTANCE);
                                long timeUs = 1_700_000_000_000_000L;
                                FlowRecords.Version v = FlowRecords.version(key, instance, flow, timeUs, true, row);
                                out.add(row.row(v.reportJson(), 0, timeUs, true));
                            },
                            (key, instance) -> TcpEventSink.NONE,
                            CaptureErrorListener.IGNORE,
                            n -> {});
        }
        return out;
    }

    private static List<TcpEvent> tcpEvents(String capture) throws Exception {
        List<TcpEvent> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis()
                    .run(
                            in,
                            (key, instance, flow) -> {},
                            (key, instance) -> {
                                FlowIdentity id = new FlowIdentity(
                                        PacketEvents.toAvro(key.vantage()),
                                        key.low().toString(),
                                        key.high().toString(),
                                        instance,
                                        false);
                                long[] index = {0};
                                return e -> {
                                    TcpEvent avro = TcpEvents.toAvro(id, index[0], e);
                                    if (avro != null) {
                                        index[0]++;
                                        out.add(avro);
                                    }
                                };
                            },
                            CaptureErrorListener.IGNORE,
                            n -> {});
        }
        return out;
    }
}
