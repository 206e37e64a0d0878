package io.flowtrace.jobs.deploy;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Grafana does to a PostgreSQL panel's raw SQL before the server sees it, in the same two steps:
 *
 * <ol>
 *   <li>Frontend template interpolation ({@link #interpolate}): {@code $name}, {@code ${name}} and
 *       {@code [[name]]} of dashboard variables and of {@code $__interval} / {@code $__interval_ms}.
 *       The PostgreSQL datasource formats a variable that is multi-value or "include All" as a list of
 *       single-quoted literals joined by commas ({@code 'a','b'}), and a single-value variable as its
 *       raw text with quotes doubled; that is why panels write {@code vantage IN ($vantage)} but
 *       {@code '$flow'}.</li>
 *   <li>Backend macros ({@link #expandMacros}), as Grafana's {@code grafana-postgresql-datasource}
 *       macro engine does (pkg/tsdb/grafana-postgresql-datasource/macros.go, TimescaleDB off): a macro
 *       is {@code $__name(args)} with args up to the first ')', split on ','; times are UTC RFC 3339
 *       with trailing fractional zeros dropped (Go's RFC3339Nano); interval seconds print like Go's
 *       {@code %v} of a float64:
 *       <ul>
 *         <li>{@code $__time(c)} → {@code c AS "time"}; {@code $__timeEpoch(c)} → {@code extract(epoch from c) as "time"}</li>
 *         <li>{@code $__timeFilter(c)} → {@code c BETWEEN 'from' AND 'to'}; {@code $__timeFrom()} / {@code $__timeTo()} → {@code 'from'} / {@code 'to'}</li>
 *         <li>{@code $__timeGroup(c, '5m')} → {@code floor(extract(epoch from c)/300)*300};
 *             {@code $__timeGroupAlias(c, '5m')} → the same {@code AS "time"}. A third fill argument only
 *             changes how Grafana fills gaps in the result, not the SQL.</li>
 *         <li>{@code $__unixEpochFilter(c)} → {@code c >= fromSec AND c <= toSec};
 *             {@code $__unixEpochGroup(c, '5m')} → {@code floor((c)/300)*300}, {@code ...Alias} adds {@code AS "time"}</li>
 *       </ul></li>
 * </ol>
 *
 * <p>{@code $__interval} is what the frontend derives from the range: range / max data points,
 * rounded by Grafana's interval table, and never below the panel's (else the datasource's) minimum
 * interval. {@link #interval} does that with 1000 data points (a wide panel).
 */
final class GrafanaSql {
    /** Grafana's macro pattern: {@code \$([_a-zA-Z0-9]+)\(([^\)]*)\)}. */
    private static final Pattern MACRO = Pattern.compile("\\$([_a-zA-Z0-9]+)\\(([^)]*)\\)");

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\[\\[(\\w+)]]|\\$(\\w+)");
    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

    private GrafanaSql() {}

    /** A variable's value as the dashboard would pass it: several values, or one. */
    record Value(List<String> values, boolean multiOrAll) {
        static Value single(String value) {
            return new Value(List.of(value), false);
        }

        static Value all(List<String> values) {
            return new Value(List.copyOf(values), true);
        }

        /** The PostgreSQL datasource's interpolateVariable. */
        String format() {
            if (!multiOrAll) {
                return values.get(0).replace("'", "''");
            }
            List<String> quoted = new ArrayList<>();
            for (String v : values) {
                quoted.add("'" + v.replace("'", "''") + "'");
            }
            return String.join(",", quoted);
        }
    }

    /** Replaces dashboard variables and {@code $__interval(_ms)}; anything else starting with $ is left alone. */
    static String interpolate(String sql, Map<String, Value> variables, Duration interval) {
        Matcher m = VARIABLE.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            String replacement;
            if (name.equals("__interval")) {
                replacement = intervalText(interval);
            } else if (name.equals("__interval_ms")) {
                replacement = Long.toString(interval.toMillis());
            } else if (variables.containsKey(name)) {
                replacement = variables.get(name).format();
            } else {
                replacement = m.group();
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Grafana's backend macro engine for PostgreSQL (see the class comment). */
    static String expandMacros(String sql, Instant from, Instant to) {
        Matcher m = MACRO.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String[] args = m.group(2).split(",", -1);
            for (int i = 0; i < args.length; i++) {
                args[i] = args[i].strip();
            }
            // Pre-5.3 compatibility in Grafana: $__timeGroup(...) followed by ',' means the alias form.
            if (name.equals("__timeGroup") && m.end() < sql.length() && sql.charAt(m.end()) == ',') {
                name = "__timeGroupAlias";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(macro(name, args, from, to)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String macro(String name, String[] args, Instant from, Instant to) {
        String column = args[0];
        return switch (name) {
            case "__time" -> column + " AS \"time\"";
            case "__timeEpoch" -> "extract(epoch from " + column + ") as \"time\"";
            case "__timeFilter" -> column + " BETWEEN '" + rfc3339(from) + "' AND '" + rfc3339(to) + "'";
            case "__timeFrom" -> "'" + rfc3339(from) + "'";
            case "__timeTo" -> "'" + rfc3339(to) + "'";
            case "__timeGroup" -> timeGroup(column, args);
            case "__timeGroupAlias" -> timeGroup(column, args) + " AS \"time\"";
            case "__unixEpochFilter" ->
                column + " >= " + from.getEpochSecond() + " AND " + column + " <= " + to.getEpochSecond();
            case "__unixEpochGroup" -> unixEpochGroup(column, args);
            case "__unixEpochGroupAlias" -> unixEpochGroup(column, args) + " AS \"time\"";
            default -> throw new IllegalArgumentException("unknown macro $" + name + " (Grafana fails the query too)");
        };
    }

    private static String timeGroup(String column, String[] args) {
        String seconds = goFloat(intervalArgument(args));
        return "floor(extract(epoch from " + column + ")/" + seconds + ")*" + seconds;
    }

    private static String unixEpochGroup(String column, String[] args) {
        String seconds = goFloat(intervalArgument(args));
        return "floor((" + column + ")/" + seconds + ")*" + seconds;
    }

    private static Duration intervalArgument(String[] args) {
        if (args.length < 2) {
            throw new IllegalArgumentException("macro needs a time column and an interval");
        }
        return parseInterval(args[1].replace("'", ""));
    }

    /** Grafana's gtime.ParseInterval for the units dashboards use: ms, s, m, h, d, w. */
    static Duration parseInterval(String text) {
        Matcher m = Pattern.compile("(\\d+)(ms|s|m|h|d|w)").matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("interval " + text + " is not <number><ms|s|m|h|d|w>");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofDays(7 * n);
        };
    }

    /** $__interval as Grafana's frontend computes it: range / 1000 points, rounded, at least {@code minimum}. */
    static Duration interval(Instant from, Instant to, Duration minimum) {
        Duration rounded = roundInterval(Duration.between(from, to).dividedBy(1000));
        return rounded.compareTo(minimum) < 0 ? minimum : rounded;
    }

    /** Grafana's rangeutil.roundInterval: the raw interval snapped to a "nice" one. */
    static Duration roundInterval(Duration raw) {
        long ms = raw.toMillis();
        long[][] table = {
            {10, 1},
            {15, 10},
            {35, 20},
            {75, 50},
            {150, 100},
            {350, 200},
            {750, 500},
            {1_500, 1_000},
            {3_500, 2_000},
            {7_500, 5_000},
            {12_500, 10_000},
            {17_500, 15_000},
            {25_000, 20_000},
            {45_000, 30_000},
            {90_000, 60_000},
            {210_000, 120_000},
            {450_000, 300_000},
            {750_000, 600_000},
            {1_050_000, 900_000},
            {1_500_000, 1_200_000},
            {2_700_000, 1_800_000},
            {5_400_000, 3_600_000},
            {9_000_000, 7_200_000},
            {16_200_000, 10_800_000},
            {30_600_000, 21_600_000},
            {86_400_000, 43_200_000},
            {604_800_000, 86_400_000},
            {1_814_400_000, 604_800_000},
            {3_628_800_000L, 2_592_000_000L},
        };
        for (long[] row : table) {
            if (ms <= row[0]) {
                return Duration.ofMillis(row[1]);
            }
        }
        return Duration.ofDays(365);
    }

    /** Grafana's interval text: the largest whole unit (1d, 2h, 30m, 10s, 500ms). */
    static String intervalText(Duration d) {
        long ms = d.toMillis();
        long[] units = {604_800_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] names = {"w", "d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (ms >= units[i] && ms % units[i] == 0) {
                return ms / units[i] + names[i];
            }
        }
        return ms + "ms";
    }

    /** Go's time.RFC3339Nano in UTC: fractional seconds without trailing zeros, none when whole. */
    static String rfc3339(Instant t) {
        String base = SECONDS.format(t);
        int nanos = t.getNano();
        if (nanos == 0) {
            return base + "Z";
        }
        String fraction = String.format("%09d", nanos).replaceAll("0+$", "");
        return base + "." + fraction + "Z";
    }

    /** Go's %v of a float64 seconds value: 300 → "300", 0.5 → "0.5". */
    static String goFloat(Duration d) {
        BigDecimal seconds = BigDecimal.valueOf(d.toNanos()).movePointLeft(9).stripTrailingZeros();
        return seconds.scale() <= 0 ? seconds.toBigInteger().toString() : seconds.toPlainString();
    }
}
