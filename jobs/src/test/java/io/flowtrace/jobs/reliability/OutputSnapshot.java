package io.flowtrace.jobs.reliability;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.ConntrackBudget;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Everything a run left in its sinks, as multisets of rows: every PostgreSQL sink table (all rows,
 * all columns but {@code dead_letters.job_time}, the wall-clock time a dead letter was made) and every
 * Kafka output topic read with isolation.level=read_committed (key plus the decoded value; a dead
 * letter's {@code job_time_ms} is dropped the same way). The only run-specific name, the input topic a
 * dead letter came from, is replaced by its role ("packets", "conntrack"): each scenario has its own
 * input topics with the same records at the same offsets.
 *
 * <p>Exactly once means equal multisets: an output a failure made twice, or lost, is a difference.
 * Decimal numbers are compared to {@value #SIGNIFICANT_DIGITS} significant digits: the windows'
 * means and standard deviations are floating-point sums in arrival order, and the order in which
 * flows reach a window from the two upstream subtasks differs between runs of the same input
 * (seen: an RTT mean of 458.20057997558007 in one run and 458.2005799755798 in the other).
 */
record OutputSnapshot(Map<String, Map<String, Integer>> sources) {

    static final int SIGNIFICANT_DIGITS = 12;
    private static final Pattern DECIMAL = Pattern.compile("-?\\d+\\.\\d+(E-?\\d+)?");
    private static final MathContext ROUNDING = new MathContext(SIGNIFICANT_DIGITS, RoundingMode.HALF_EVEN);

    static final List<String> TABLES = List.of(
            "flow_summary", "tcp_events", "service_windows", "vantage_windows", "conntrack_budgets", "dead_letters");

    static OutputSnapshot take(Postgres postgres, String database, KafkaBroker kafka, Scenario scenario) {
        Map<String, Map<String, Integer>> sources = new LinkedHashMap<>();
        for (String table : TABLES) {
            Map<String, Integer> rows = new TreeMap<>();
            for (Map<String, Object> row : postgres.queryIn(database, "SELECT * FROM " + table)) {
                rows.merge(rowText(row, scenario), 1, Integer::sum);
            }
            sources.put("table " + table, rows);
        }
        add(sources, kafka, scenario.topic("flows"), FlowRecord.getDecoder(), scenario);
        add(sources, kafka, scenario.topic("tcp-events"), TcpEvent.getDecoder(), scenario);
        add(sources, kafka, scenario.topic("service-windows"), ServiceWindow.getDecoder(), scenario);
        add(sources, kafka, scenario.topic("vantage-windows"), VantageWindow.getDecoder(), scenario);
        add(sources, kafka, scenario.topic("conntrack-budgets"), ConntrackBudget.getDecoder(), scenario);
        add(sources, kafka, scenario.topic("dead-letters"), DeadLetter.getDecoder(), scenario);
        return new OutputSnapshot(sources);
    }

    private static <T extends SpecificRecordBase> void add(
            Map<String, Map<String, Integer>> sources,
            KafkaBroker kafka,
            String topic,
            BinaryMessageDecoder<T> decoder,
            Scenario scenario) {
        Map<String, Integer> records = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readCommitted(topic)) {
            T value;
            try {
                value = decoder.decode(r.value());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "undecodable record in " + topic + " at " + r.partition() + "/" + r.offset(), e);
            }
            if (value instanceof DeadLetter d) {
                d.setTopic(scenario.role(d.getTopic()));
                d.setJobTimeMs(0L);
            }
            String key = r.key() == null ? "null" : new String(r.key(), UTF_8);
            records.merge(key + " => " + rounded(value.toString()), 1, Integer::sum);
        }
        sources.put("topic " + scenario.role(topic), records);
    }

    private static String rowText(Map<String, Object> row, Scenario scenario) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Object> column : new TreeMap<>(row).entrySet()) {
            String name = column.getKey();
            if (name.equals("job_time")) {
                continue;
            }
            Object v = column.getValue();
            String text =
                    v == null ? "null" : v instanceof byte[] b ? HexFormat.of().formatHex(b) : rounded(v.toString());
            if (name.equals("topic")) {
                text = scenario.role(text);
            }
            out.append(name).append('=').append(text).append(' ');
        }
        return out.toString();
    }

    /** Every decimal number in {@code text} rounded to {@link #SIGNIFICANT_DIGITS} significant digits. */
    static String rounded(String text) {
        Matcher m = DECIMAL.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(
                    out,
                    new BigDecimal(m.group())
                            .round(ROUNDING)
                            .stripTrailingZeros()
                            .toString());
        }
        m.appendTail(out);
        return out.toString();
    }

    int size(String source) {
        return sources.get(source).values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Row counts per source, for the log and the docs. */
    Map<String, Integer> counts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        sources.keySet().forEach(s -> out.put(s, size(s)));
        return out;
    }

    /** Human-readable differences against {@code expected} (empty when equal): missing and extra rows per source. */
    List<String> differencesFrom(OutputSnapshot expected) {
        List<String> out = new ArrayList<>();
        for (String source : expected.sources.keySet()) {
            Map<String, Integer> want = expected.sources.get(source);
            Map<String, Integer> got = sources.getOrDefault(source, Map.of());
            List<String> missing = new ArrayList<>();
            List<String> extra = new ArrayList<>();
            want.forEach((row, n) -> {
                int have = got.getOrDefault(row, 0);
                if (have < n) {
                    missing.add((n - have) + "x " + row);
                }
            });
            got.forEach((row, n) -> {
                int need = want.getOrDefault(row, 0);
                if (n > need) {
                    extra.add((n - need) + "x " + row);
                }
            });
            if (!missing.isEmpty() || !extra.isEmpty()) {
                out.add(source + ": " + missing.size() + " rows missing, " + extra.size() + " rows extra (reference "
                        + expected.size(source) + ", this run " + size(source) + ")");
                missing.stream().limit(3).forEach(r -> out.add("  missing " + abbreviate(r)));
                extra.stream().limit(3).forEach(r -> out.add("  extra   " + abbreviate(r)));
            }
        }
        return out;
    }

    private static String abbreviate(String row) {
        return row.length() <= 4000 ? row : row.substring(0, 4000) + "...";
    }
}
