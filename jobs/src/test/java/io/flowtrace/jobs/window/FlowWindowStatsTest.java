package io.flowtrace.jobs.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.junit.jupiter.api.Test;

/**
 * The windows aggregate what the catalogue declares: a field marked SUM adds into the statistic it
 * names, a field marked SAMPLE feeds the reservoir it names, and every statistic of the window is
 * declared by a catalogue field or is one the job counts itself.
 */
class FlowWindowStatsTest {
    /** Statistics not taken from one catalogue field. */
    private static final Set<String> JOB_STATISTICS = Set.of(
            "flows", // one per ended flow
            "latePackets", // the job's count of packets behind the watermark
            "completedHandshakes"); // flows whose setup.setup_us is present

    private static FlowSummary flowWith(FlowField field, Object value, FlowField.Side side) {
        return FlowSummary.of(recordWith(field, value, side), 0, true);
    }

    private static FlowRecord recordWith(FlowField field, Object value, FlowField.Side side) {
        FlowRecord r = FlowRecord.newBuilder().build();
        IndexedRecord at = field.scope() == FlowField.Scope.DIRECTION ? (IndexedRecord) r.get(side.jsonName()) : r;
        String[] names = field.path().split("\\.");
        for (int i = 0; i < names.length - 1; i++) {
            at = (IndexedRecord) at.get(at.getSchema().getField(names[i]).pos());
        }
        Schema.Field leaf = at.getSchema().getField(names[names.length - 1]);
        Schema.Type type = leaf.schema().isNullable()
                ? leaf.schema().getTypes().get(1).getType()
                : leaf.schema().getType();
        at.put(leaf.pos(), type == Schema.Type.INT && value instanceof Long l ? (Object) l.intValue() : value);
        return r;
    }

    private static Object statistic(FlowWindowStats stats, String name) throws ReflectiveOperationException {
        return FlowWindowStats.class.getField(name).get(stats);
    }

    @Test
    void aSummedFieldAddsIntoTheStatisticTheCatalogueNames() throws Exception {
        for (FlowField f : FlowFields.all()) {
            if (f.window().aggregate() != FlowField.Aggregate.SUM || f.kind() != FlowField.Kind.INTEGER) {
                continue;
            }
            FlowWindowStats stats = new FlowWindowStats(8);
            stats.add(flowWith(f, 7L, FlowField.Side.C2S));
            if (f.scope() == FlowField.Scope.DIRECTION) {
                stats.add(flowWith(f, 7L, FlowField.Side.S2C));
            }
            long expected = f.scope() == FlowField.Scope.DIRECTION ? 14 : 7;
            assertThat(statistic(stats, f.window().stat()))
                    .as("%s into %s", f.path(), f.window().stat())
                    .isEqualTo(expected);
        }
    }

    @Test
    void aSampledFieldFeedsTheReservoirTheCatalogueNames() throws Exception {
        for (FlowField f : FlowFields.all()) {
            if (f.window().aggregate() != FlowField.Aggregate.SAMPLE) {
                continue;
            }
            FlowWindowStats stats = new FlowWindowStats(8);
            Object seven = f.kind() == FlowField.Kind.INTEGER ? (Object) 7L : (Object) 7.0;
            stats.add(flowWith(f, f.path().equals("setup.setup_us") ? (Object) 7L : seven, FlowField.Side.C2S));
            Reservoir r = (Reservoir) statistic(stats, f.window().stat());
            assertThat(r.count).as("%s into %s", f.path(), f.window().stat()).isEqualTo(1);
            assertThat(r.mean()).as("%s into %s", f.path(), f.window().stat()).isEqualTo(7.0);
        }
    }

    @Test
    void aPrematureExitCountsAmongTheExits() {
        FlowRecord flow = recordWith(FlowFields.EXIT_CWND_SEGMENTS, 10L, FlowField.Side.S2C);
        flow.getS2c().getSlowStart().setPremature(true);
        FlowWindowStats stats = new FlowWindowStats(8);
        stats.add(FlowSummary.of(flow, 0, true));

        assertThat(stats.prematureExits).isEqualTo(1);
        assertThat(stats.prematureShare()).isEqualTo(1.0);
        assertThat(FlowFields.PREMATURE.window().stat()).isEqualTo("prematureExits");
    }

    @Test
    void theFlowRttIsTheClientsElseTheServers() {
        FlowRecord both = recordWith(FlowFields.RTT_AVG_US, 100.0, FlowField.Side.C2S);
        both.getS2c().getRttUs().setAvg(300.0);
        FlowSummary serverOnly = flowWith(FlowFields.RTT_AVG_US, 300.0, FlowField.Side.S2C);
        FlowWindowStats stats = new FlowWindowStats(8);
        stats.add(FlowSummary.of(both, 0, true));
        stats.add(serverOnly);

        assertThat(stats.rttUs.count).isEqualTo(2);
        assertThat(stats.rttUs.mean()).isEqualTo((100.0 + 300.0) / 2);
    }

    @Test
    void everyStatisticIsDeclaredByTheCatalogueOrCountedByTheJob() {
        Set<String> declared = new HashSet<>(JOB_STATISTICS);
        FlowFields.all().forEach(f -> declared.add(f.window().stat()));
        for (Field field : FlowWindowStats.class.getFields()) {
            boolean statistic = field.getType() == long.class || field.getType() == Reservoir.class;
            if (statistic && !Modifier.isStatic(field.getModifiers())) {
                assertThat(declared)
                        .as("FlowWindowStats.%s has no catalogue field", field.getName())
                        .contains(field.getName());
            }
        }
        assertThat(List.of(FlowWindowStats.class.getFields())).isNotEmpty();
    }
}
