package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.jobs.deploy.GrafanaSql.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Grafana emulation against the expansions Grafana's PostgreSQL documentation lists ("Macros":
 * {@code $__timeFilter(dateColumn)} → {@code dateColumn BETWEEN '2017-04-21T05:01:17Z' AND '2017-04-21T05:01:17Z'},
 * {@code $__timeGroup(dateColumn,'5m')} → {@code floor(extract(epoch from dateColumn)/300)*300}, ...) and
 * the variable formatting its docs describe for multi-value variables ({@code 'value1','value2'}).
 */
class GrafanaSqlTest {
    private static final Instant FROM = Instant.parse("2017-04-21T05:01:17Z");
    private static final Instant TO = Instant.parse("2017-04-21T05:06:17Z");

    @Test
    void expandsTimeMacrosLikeGrafanasDocumentation() {
        assertThat(GrafanaSql.expandMacros("WHERE $__timeFilter(dateColumn)", FROM, TO))
                .isEqualTo("WHERE dateColumn BETWEEN '2017-04-21T05:01:17Z' AND '2017-04-21T05:06:17Z'");
        assertThat(GrafanaSql.expandMacros("$__time(dateColumn)", FROM, TO)).isEqualTo("dateColumn AS \"time\"");
        assertThat(GrafanaSql.expandMacros("$__timeEpoch(dateColumn)", FROM, TO))
                .isEqualTo("extract(epoch from dateColumn) as \"time\"");
        assertThat(GrafanaSql.expandMacros("$__timeFrom() $__timeTo()", FROM, TO))
                .isEqualTo("'2017-04-21T05:01:17Z' '2017-04-21T05:06:17Z'");
        assertThat(GrafanaSql.expandMacros("$__unixEpochFilter(dateColumn)", FROM, TO))
                .isEqualTo("dateColumn >= 1492750877 AND dateColumn <= 1492751177");
    }

    @Test
    void groupsByIntervalSecondsWithAndWithoutAlias() {
        assertThat(GrafanaSql.expandMacros("SELECT $__timeGroup(dateColumn,'5m') AS t", FROM, TO))
                .isEqualTo("SELECT floor(extract(epoch from dateColumn)/300)*300 AS t");
        assertThat(GrafanaSql.expandMacros("SELECT $__timeGroupAlias(dateColumn, '1h', 0)", FROM, TO))
                .isEqualTo("SELECT floor(extract(epoch from dateColumn)/3600)*3600 AS \"time\"");
        // Grafana before 5.3: $__timeGroup followed by ',' is the alias form.
        assertThat(GrafanaSql.expandMacros("SELECT $__timeGroup(dateColumn,'10s'), v", FROM, TO))
                .isEqualTo("SELECT floor(extract(epoch from dateColumn)/10)*10 AS \"time\", v");
        assertThat(GrafanaSql.expandMacros("$__unixEpochGroupAlias(ts,'500ms')", FROM, TO))
                .isEqualTo("floor((ts)/0.5)*0.5 AS \"time\"");
    }

    @Test
    void printsFractionalSecondsLikeGosRfc3339Nano() {
        assertThat(GrafanaSql.rfc3339(Instant.parse("2026-11-29T10:00:00.500Z")))
                .isEqualTo("2026-11-29T10:00:00.5Z");
        assertThat(GrafanaSql.rfc3339(Instant.parse("2026-11-29T10:00:00.123Z")))
                .isEqualTo("2026-11-29T10:00:00.123Z");
    }

    @Test
    void unknownMacroFailsLikeGrafana() {
        assertThatThrownBy(() -> GrafanaSql.expandMacros("$__nope(x)", FROM, TO))
                .hasMessageContaining("__nope");
    }

    @Test
    void formatsMultiValueVariablesAsQuotedListsAndSingleValuesRaw() {
        Map<String, Value> vars =
                Map.of("vantage", Value.all(List.of("a/eth0", "o'b/eth1")), "flow", Value.single("x|y"));
        assertThat(GrafanaSql.interpolate(
                        "v IN ($vantage) AND f = '$flow' AND g = '${flow}' AND h = '[[flow]]' AND $__timeFilter(t)",
                        vars,
                        Duration.ofMinutes(1)))
                .isEqualTo(
                        "v IN ('a/eth0','o''b/eth1') AND f = 'x|y' AND g = 'x|y' AND h = 'x|y' AND $__timeFilter(t)");
    }

    @Test
    void derivesIntervalFromTheRangeAndTheMinimum() {
        // 5 min / 1000 points = 300 ms → 200 ms, below a 10 s minimum.
        Duration i = GrafanaSql.interval(FROM, TO, Duration.ofSeconds(10));
        assertThat(i).isEqualTo(Duration.ofSeconds(10));
        assertThat(GrafanaSql.interpolate("$__timeGroupAlias(t, $__interval) / $__interval_ms", Map.of(), i))
                .isEqualTo("$__timeGroupAlias(t, 10s) / 10000");
        // 1 day / 1000 = 86.4 s → 1m; 30 days / 1000 = 43.2 min → 30m.
        assertThat(GrafanaSql.interval(FROM, FROM.plus(Duration.ofDays(1)), Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(GrafanaSql.interval(FROM, FROM.plus(Duration.ofDays(30)), Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofMinutes(30));
    }
}
