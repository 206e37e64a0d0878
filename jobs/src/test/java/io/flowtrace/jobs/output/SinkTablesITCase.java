package io.flowtrace.jobs.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.AvroFlowValues;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.flow.FlowRowLayout;
import io.flowtrace.jobs.flow.FlowRowWriter;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.ReportJson;
import io.flowtrace.testkit.Postgres;
import java.io.InputStream;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sink tables' upserts against the tables the migrations create in a real PostgreSQL: every
 * column of every table is written and every written column exists with its type, NOT NULL columns
 * are never bound to NULL, flow_summary's catalogue columns have exactly the catalogue's
 * nullability, and a real flow's row holds its Avro record's values, column by column.
 */
class SinkTablesITCase {
    @RegisterExtension
    static final Postgres POSTGRES = new Postgres();

    @BeforeAll
    static void migrate() {
        for (String resource : PostgresSinks.SCHEMA_RESOURCES) {
            POSTGRES.runSqlResource(resource);
        }
    }

    private record DbColumn(String type, boolean nullable) {}

    private static Map<String, DbColumn> columnsOf(String table) {
        Map<String, DbColumn> columns = new LinkedHashMap<>();
        for (Map<String, Object> row : POSTGRES.query(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns"
                        + " WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position",
                table)) {
            columns.put(
                    (String) row.get("column_name"),
                    new DbColumn((String) row.get("data_type"), "YES".equals(row.get("is_nullable"))));
        }
        return columns;
    }

    @Test
    void everyUpsertWritesExactlyItsTablesColumnsWithTheirTypes() {
        for (Upsert<?> upsert : PostgresRows.all()) {
            Map<String, DbColumn> table = columnsOf(upsert.table());
            assertThat(table).as("table %s exists", upsert.table()).isNotEmpty();
            Set<String> written = new TreeSet<>();
            for (Upsert.Column<?> c : upsert.columns()) {
                written.add(c.name());
                DbColumn db = table.get(c.name());
                assertThat(db)
                        .as("%s.%s is written but no migration creates it", upsert.table(), c.name())
                        .isNotNull();
                assertThat(db.type()).as("%s.%s type", upsert.table(), c.name()).isEqualTo(c.type());
                if (c.nullable()) {
                    assertThat(db.nullable())
                            .as("%s.%s may be written NULL but is NOT NULL", upsert.table(), c.name())
                            .isTrue();
                }
            }
            assertThat(written).as("columns of %s", upsert.table()).isEqualTo(new TreeSet<>(table.keySet()));
        }
    }

    @Test
    void flowSummaryHasEveryCatalogueColumnWithTheCataloguesNullability() {
        Map<String, DbColumn> table = columnsOf("flow_summary");
        for (FlowField f : FlowFields.all()) {
            if (f.column() == null) {
                continue;
            }
            for (String name : f.column().names()) {
                assertThat(table)
                        .as("catalogue column %s of %s", name, f.path())
                        .containsKey(name);
                assertThat(table.get(name).nullable())
                        .as("nullability of flow_summary.%s (%s)", name, f.path())
                        .isEqualTo(f.columnNullable());
            }
        }
    }

    @Test
    void everyUpsertSurvivesSerialisationAsTheConnectorShipsIt() throws Exception {
        for (Upsert<?> upsert : PostgresRows.all()) {
            Upsert<?> copy = org.apache.flink.util.InstantiationUtil.clone(upsert);
            assertThat(copy.sql()).isEqualTo(upsert.sql());
        }
    }

    @Test
    void everyUpsertIsValidSqlWithOneParameterPerColumn() throws Exception {
        try (Connection c = POSTGRES.dataSource().getConnection()) {
            for (Upsert<?> upsert : PostgresRows.all()) {
                try (PreparedStatement st = c.prepareStatement(upsert.sql())) {
                    assertThat(st.getParameterMetaData().getParameterCount())
                            .as(upsert.table())
                            .isEqualTo(upsert.columns().size());
                }
            }
        }
    }

    /** On cubic-loss (retransmissions, resets) and zero-window (a stalled reader, probed: window_probes). */
    @ParameterizedTest
    @ValueSource(strings = {"tcp/cubic-loss.sender.pcap.gz", "tcp/zero-window.sender.pcap.gz"})
    void aFlowRowHoldsItsRecordsValuesAndAnOlderReplayDoesNotOverwriteIt(String capture) throws Exception {
        List<FlowRecord> flows = new ArrayList<>();
        List<FlowRow> rows = rowsOf(capture, flows);
        assertThat(flows).isNotEmpty();
        upsert(rows);
        FlowRow older = rows.get(0);
        FlowRow stale = copyOf(older);
        stale.recordTimeUs = 1_000L;
        stale.integers[FlowRowLayout.INSTANCE.slot(FlowFields.PACKETS, FlowField.Side.C2S)] = 0L;
        upsert(List.of(stale));

        long probes = 0;
        for (FlowRecord s : flows) {
            Map<String, Object> row = POSTGRES.query(
                            "SELECT * FROM flow_summary WHERE client = ? AND instance = ?",
                            s.getFlow().getClient(),
                            s.getFlow().getInstance())
                    .get(0);
            // the values the Avro record holds: the columns were read from it before the typed rows
            AvroFlowValues avro = new AvroFlowValues(s);
            for (FlowField f : FlowFields.all()) {
                if (f.column() == null) {
                    continue;
                }
                List<String> names = f.column().names();
                switch (f.column().columns()) {
                    case ONE -> assertColumn(row, names.get(0), avro.value(f, null));
                    case PER_DIRECTION -> {
                        assertColumn(row, names.get(0), avro.value(f, FlowField.Side.C2S));
                        assertColumn(row, names.get(1), avro.value(f, FlowField.Side.S2C));
                    }
                    case SUM_OF_DIRECTIONS ->
                        assertColumn(
                                row,
                                names.get(0),
                                ((Number) avro.value(f, FlowField.Side.C2S)).longValue()
                                        + ((Number) avro.value(f, FlowField.Side.S2C)).longValue());
                }
            }
            probes += ((Number) row.get("c2s_window_probes")).longValue();
            assertThat(row.get("final")).isEqualTo(true);
            assertThat(row.get("late_packets")).isEqualTo(3L);
            assertThat(row.get("record_time_us")).isEqualTo(2_000L);
        }
        if (capture.contains("zero-window")) {
            assertThat(probes)
                    .as("the stalled reader's probes in c2s_window_probes")
                    .isPositive();
        }
    }

    /**
     * The writer's batch (one row per key, {@link NewestPerKey}) through pgjdbc's
     * {@code reWriteBatchedInserts} leaves exactly the rows the same versions leave as single-row
     * upserts one by one, in a second database; without the dedupe PostgreSQL refuses the multi-row
     * statement. Per flow of short-conns (240 connections, so several 128-row statements): its
     * version at 2,000 µs, a replayed older one at 1,000 µs, then one at the same 2,000 µs with
     * late_packets 7, which must win (equal times: the later row, by the upsert's condition).
     */
    @Test
    void aBatchOfTheNewestRowPerKeyRunsAsMultiRowStatementsAndLeavesTheSingleRowResult() throws Exception {
        List<FlowRow> versions = new ArrayList<>();
        for (FlowRow s : rowsOf("tcp/short-conns.sender.pcap.gz", new ArrayList<>())) {
            versions.add(s);
            FlowRow stale = copyOf(s);
            stale.recordTimeUs = 1_000L;
            stale.integers[FlowRowLayout.INSTANCE.slot(FlowFields.PACKETS, FlowField.Side.C2S)] = 0L;
            stale.latePackets = 0;
            stale.finalRecord = false;
            versions.add(stale);
            FlowRow later = copyOf(s);
            later.latePackets = 7;
            versions.add(later);
        }
        assertThat(versions).hasSize(3 * 240);
        String one = POSTGRES.createDatabase("rows_one_by_one");
        String multi = POSTGRES.createDatabase("rows_multi") + "&reWriteBatchedInserts=true";
        Upsert<FlowRow> upsert = PostgresRows.FLOW_SUMMARY;
        try (Connection c = migrated(one);
                PreparedStatement st = c.prepareStatement(upsert.sql())) {
            for (FlowRow s : versions) {
                upsert.accept(st, s);
                st.executeUpdate();
            }
        }
        try (Connection c = migrated(multi);
                PreparedStatement st = c.prepareStatement(upsert.sql())) {
            for (FlowRow s : versions) {
                upsert.accept(st, s);
                st.addBatch();
            }
            assertThatThrownBy(st::executeBatch)
                    .isInstanceOf(java.sql.BatchUpdateException.class)
                    .hasStackTraceContaining("cannot affect row a second time");
            st.clearBatch();
            NewestPerKey<FlowRow> batch = new NewestPerKey<>(upsert);
            for (FlowRow s : versions) {
                batch.add(s);
            }
            for (FlowRow s : batch.drain()) {
                upsert.accept(st, s);
                st.addBatch();
            }
            // pgjdbc reports a rewritten multi-row statement's rows as SUCCESS_NO_INFO
            assertThat(st.executeBatch()).hasSize(240).containsOnly(java.sql.Statement.SUCCESS_NO_INFO);
        }
        String all = "SELECT * FROM flow_summary ORDER BY vantage, client, server, instance";
        List<Map<String, Object>> expected = POSTGRES.queryIn("rows_one_by_one", all);
        assertThat(expected).hasSize(240).allSatisfy(row -> {
            assertThat(row.get("late_packets")).isEqualTo(7L);
            assertThat(row.get("record_time_us")).isEqualTo(2_000L);
        });
        assertThat(POSTGRES.queryIn("rows_multi", all)).isEqualTo(expected);
    }

    private static Connection migrated(String url) throws Exception {
        Connection c = java.sql.DriverManager.getConnection(url);
        try (java.sql.Statement st = c.createStatement()) {
            for (String resource : PostgresSinks.SCHEMA_RESOURCES) {
                try (InputStream in = SinkTablesITCase.class.getResourceAsStream(resource)) {
                    st.execute(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                }
            }
        }
        return c;
    }

    /** The flow_summary rows of a capture as the flow function builds them, with each one's record. */
    private static List<FlowRow> rowsOf(String capture, List<FlowRecord> records) throws Exception {
        List<FlowRow> rows = new ArrayList<>();
        CaptureAnalysis analysis =
                new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("lab", "if" + iface));
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            analysis.run(
                    in,
                    (key, instance, flow) -> {
                        // the row as the flow function builds it, from the walk that builds the record
                        FlowRowWriter row = new FlowRowWriter(FlowRowLayout.INSTANCE);
                        FlowRecords.Version v = FlowRecords.version(key, instance, flow, 2_000L, true, row);
                        assertThat(v.reportJson()).isEqualTo(ReportJson.of(key, instance, flow));
                        records.add(v.record());
                        rows.add(row.row(v.reportJson(), 3, 2_000L, true));
                    },
                    TcpEventSinkFactory.NONE,
                    CaptureErrorListener.IGNORE,
                    n -> {});
        }
        return rows;
    }

    private static FlowRow copyOf(FlowRow r) {
        FlowRow c = new FlowRow();
        c.texts = r.texts.clone();
        c.integers = r.integers.clone();
        c.nullIntegers = r.nullIntegers.clone();
        c.decimals = r.decimals.clone();
        c.flags = r.flags.clone();
        c.latePackets = r.latePackets;
        c.recordTimeUs = r.recordTimeUs;
        c.finalRecord = r.finalRecord;
        c.reportJson = r.reportJson;
        return c;
    }

    private static void assertColumn(Map<String, Object> row, String column, Object expected) {
        Object actual = row.get(column);
        if (actual instanceof OffsetDateTime t) {
            actual = t.toInstant().getEpochSecond() * 1_000_000L + t.toInstant().getNano() / 1000;
        } else if (actual instanceof java.sql.Timestamp t) {
            actual = t.toInstant().getEpochSecond() * 1_000_000L + t.toInstant().getNano() / 1000;
        }
        if (expected instanceof Number n && actual instanceof Number a) {
            assertThat(a.doubleValue()).as(column).isEqualTo(n.doubleValue());
        } else {
            assertThat(actual).as(column).isEqualTo(expected);
        }
    }

    private static void upsert(List<FlowRow> rows) throws Exception {
        try (Connection c = POSTGRES.dataSource().getConnection();
                PreparedStatement st = c.prepareStatement(PostgresRows.FLOW_SUMMARY.sql())) {
            for (FlowRow s : rows) {
                PostgresRows.FLOW_SUMMARY.accept(st, s);
                st.executeUpdate();
            }
        }
    }
}
