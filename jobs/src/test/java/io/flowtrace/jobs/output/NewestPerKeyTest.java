package io.flowtrace.jobs.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sink batch keeps one row per key, the one applying its rows one by one would leave, with
 * versions written by hand: for flow_summary's rule ({@code stored.record_time_us <=
 * EXCLUDED.record_time_us}) the newest wins and of equal times the later; DO UPDATE keeps the
 * later, DO NOTHING the first; rows of another instance of the same flow are other keys.
 */
class NewestPerKeyTest {
    /** One version of a flow row: its key (client, server, instance), its record time, a tag naming it. */
    record Version(String client, String server, long instance, long timeUs, String tag) {}

    private static Upsert.Builder<Version> columns(String table) {
        return Upsert.<Version>into(table, "client", "server", "instance")
                .text("client", Version::client)
                .text("server", Version::server)
                .int8("instance", Version::instance)
                .int8("record_time_us", Version::timeUs)
                .text("tag", Version::tag);
    }

    private static final Upsert<Version> NEWEST =
            columns("flows").updateAllWhere("flows.record_time_us <= EXCLUDED.record_time_us");

    private static List<String> batch(Upsert<Version> upsert, Version... rows) throws Exception {
        NewestPerKey<Version> batch = new NewestPerKey<>(upsert);
        for (Version v : rows) {
            batch.add(v);
        }
        List<String> tags = batch.drain().stream().map(Version::tag).toList();
        assertThat(batch.isEmpty()).isTrue();
        return tags;
    }

    private static Version v(long instance, long timeUs, String tag) {
        return new Version("10.0.0.1:40000", "10.0.0.2:443", instance, timeUs, tag);
    }

    @Test
    void anOlderVersionAfterANewerOneDoesNotReplaceIt() throws Exception {
        assertThat(batch(NEWEST, v(0, 2_000, "new"), v(0, 1_000, "old"))).containsExactly("new");
        assertThat(batch(NEWEST, v(0, 1_000, "old"), v(0, 2_000, "new"))).containsExactly("new");
        // updates at 1, 3, then a replayed 2: 3 stays, as three single-row upserts would leave it
        assertThat(batch(NEWEST, v(0, 1, "t1"), v(0, 3, "t3"), v(0, 2, "t2"))).containsExactly("t3");
    }

    @Test
    void ofEqualTimesTheLaterRowWinsAsTheConditionLetsItUpdate() throws Exception {
        // stored.t <= EXCLUDED.t holds for equal times: the second statement would overwrite the first
        assertThat(batch(NEWEST, v(0, 5_000, "first"), v(0, 5_000, "second"))).containsExactly("second");
    }

    @Test
    void twoInstancesOfOneFlowKeyAreTwoRows() throws Exception {
        assertThat(batch(
                        NEWEST,
                        v(0, 9_000, "i0-late"),
                        v(1, 1_000, "i1-early"),
                        v(0, 8_000, "i0-replayed"),
                        v(1, 2_000, "i1-later")))
                .containsExactly("i0-late", "i1-later");
        Version otherClient = new Version("10.0.0.3:40000", "10.0.0.2:443", 0, 1, "other-client");
        assertThat(batch(NEWEST, v(0, 2, "a"), otherClient)).containsExactly("a", "other-client");
    }

    @Test
    void doUpdateKeepsTheLaterRowAndDoNothingTheFirst() throws Exception {
        Upsert<Version> updateAll = columns("flows").updateAll();
        Upsert<Version> keepFirst = columns("flows").keepFirst();
        assertThat(batch(updateAll, v(0, 2, "a"), v(0, 1, "b"))).containsExactly("b");
        assertThat(batch(keepFirst, v(0, 1, "a"), v(0, 2, "b"))).containsExactly("a");
    }

    @Test
    void anUpdateConditionWithoutAKnownBatchRuleIsRefusedWhenDeclared() {
        assertThatThrownBy(() -> columns("flows").updateAllWhere("flows.tag <> EXCLUDED.tag"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flows.tag <> EXCLUDED.tag");
        assertThatThrownBy(() -> columns("flows").updateAllWhere("other.record_time_us <= EXCLUDED.record_time_us"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSinkTablesConditionsAreKnown() {
        for (Upsert<?> u : PostgresRows.all()) {
            assertThat(u.conflict()).as(u.table()).isNotNull();
        }
        assertThat(PostgresRows.FLOW_CONNTRACK.conflict()).isEqualTo(Upsert.OnConflict.UPDATE_IF_NOT_OLDER);
        assertThat(PostgresRows.FLOW_CONNTRACK
                        .columns()
                        .get(PostgresRows.FLOW_CONNTRACK.versionColumn())
                        .name())
                .isEqualTo("join_time_us");
        assertThat(PostgresRows.DEAD_LETTERS.conflict()).isEqualTo(Upsert.OnConflict.KEEP_FIRST);
    }

    @Test
    void theSinkUrlAsksForMultiRowInsertsUnlessItSaysOtherwise() {
        assertThat(PostgresSinks.withBatchedInserts("jdbc:postgresql://db:5432/flowtrace"))
                .isEqualTo("jdbc:postgresql://db:5432/flowtrace?reWriteBatchedInserts=true");
        assertThat(PostgresSinks.withBatchedInserts("jdbc:postgresql://db/flowtrace?sslmode=require"))
                .isEqualTo("jdbc:postgresql://db/flowtrace?sslmode=require&reWriteBatchedInserts=true");
        assertThat(PostgresSinks.withBatchedInserts("jdbc:postgresql://db/f?reWriteBatchedInserts=false"))
                .isEqualTo("jdbc:postgresql://db/f?reWriteBatchedInserts=false");
    }
}
