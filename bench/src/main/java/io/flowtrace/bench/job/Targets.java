package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import java.util.Map;

/**
 * The closing lines of a {@link JobBench} run: each target of docs/BENCHMARKS.md "Job" as a ratio
 * of this run's medians (packets/s; the flows/s ratios are the same, one input), printed when the
 * run measured both sides. Lines start {@code JOBBENCH target}.
 */
final class Targets {
    private Targets() {}

    static void print(JobBenchContext bench) {
        Map<String, Double> m = bench.medians;
        for (String p : bench.arg("parallelism").split(",")) {
            String steady = "steady p=" + p;
            ratio(m, steady, "consume", 0.5, "job steady / consume + decode (target >= 50 %, both inputs)");
            ratio(
                    m,
                    steady,
                    "analyze",
                    Double.NaN,
                    "job steady / analyze whole process (targets: short connections >= 40 % of its flows/s,"
                            + " lossy bulk >= 25 % of its packets/s)");
            ratio(m, steady, "ceiling p=" + p, Double.NaN, "job steady / Flink ceiling at the same parallelism");
        }
        ratio(m, "steady p=2", "steady p=1", 1.6, "job steady p=2 / p=1 (target >= 1.6)");
        ratio(m, "ceiling p=2", "ceiling p=1", Double.NaN, "Flink ceiling p=2 / p=1");
        if (m.containsKey("latency p99 ms")) {
            report(
                    "target latency: event -> PostgreSQL p99 %.0f ms at %,.0f packets/s offered (target <= 2,000 ms at"
                            + " half the steady rate p=2): %s",
                    m.get("latency p99 ms"), m.get("latency rate"), m.get("latency p99 ms") <= 2000 ? "met" : "missed");
        }
    }

    private static void ratio(Map<String, Double> m, String a, String b, double target, String what) {
        if (!m.containsKey(a) || !m.containsKey(b)) {
            return;
        }
        if (!(m.get(b) > 0) || Double.isNaN(m.get(a))) {
            // e.g. no steady rate: the input too small for a flow record past 10 % and 90 % of it
            report("target %s: not measured in this run (%s %,.0f, %s %,.0f)", what, a, m.get(a), b, m.get(b));
            return;
        }
        double r = m.get(a) / m.get(b);
        String verdict = Double.isNaN(target) ? "" : (r >= target ? ": met" : ": missed");
        report("target %s: %,.0f / %,.0f = %.1f %% (%.2fx)%s", what, m.get(a), m.get(b), 100 * r, r, verdict);
    }
}
