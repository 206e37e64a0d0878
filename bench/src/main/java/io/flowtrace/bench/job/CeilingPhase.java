package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import io.flowtrace.jobs.input.InputSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;

/**
 * (C) The Flink ceiling: a pass-through job over the same topic as (2), with the job's own source
 * and deserializer (raw per-flow batches, packets not decoded), {@code keyBy} the flow key (the same
 * shuffle and {@code FlowBatch} serializer as the job), a keyed function that only counts packets,
 * and a discarding sink; bounded, parallelism as {@code --parallelism}, the same checkpoint
 * interval. What Flink itself moves on this machine: every job figure reads against it. Steady rate:
 * 0.8 n over the wall time between the moments the counted packets pass 10 % and 90 % of the input
 * (the MiniCluster runs in this JVM, so one counter sees every subtask).
 */
final class CeilingPhase {
    /** Packets counted by the keyed function of the running ceiling job, over all subtasks. */
    static final AtomicLong SEEN = new AtomicLong();

    static final AtomicLong AT10_NS = new AtomicLong();
    static final AtomicLong AT90_NS = new AtomicLong();
    static volatile long total;

    private final JobBenchContext bench;

    CeilingPhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run(InputTopic input, int runs) throws Exception {
        for (String p : bench.arg("parallelism").split(",")) {
            String load = JobBenchContext.load();
            List<Double> rates = new ArrayList<>();
            List<Double> steady = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                double[] rate = once(input, Integer.parseInt(p));
                rates.add(rate[0]);
                steady.add(rate[1]);
            }
            bench.remember("ceiling p=" + p, JobBenchContext.median(steady));
            report(
                    "(C) Flink ceiling: source -> keyBy flow key -> discarding sink, parallelism %s: %s (wall), "
                            + "steady %s; load %s -> %s",
                    p, bench.rates(rates), bench.rates(steady), load, JobBenchContext.load());
        }
    }

    private double[] once(InputTopic input, int parallelism) throws Exception {
        long n = input.packets();
        String run = "ceiling-p" + parallelism + "-" + bench.nextSeq();
        Map<String, String> o = bench.jobOptions(input.name(), run);
        o.put("bounded", "true");
        o.put("checkpoint-interval-ms", bench.arg("checkpoint-interval-ms"));
        o.put("state-backend", "hashmap");
        JobConfig config = JobConfig.of(o);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        env.setParallelism(parallelism);
        env.getConfig().enableObjectReuse(); // as the job does
        SEEN.set(0);
        AT10_NS.set(0);
        AT90_NS.set(0);
        total = n;
        env.fromSource(InputSources.packets(config), WatermarkStrategy.noWatermarks(), "packets")
                .flatMap(new Valid())
                .keyBy(new FlowKeySelector())
                .process(new Count())
                .sinkTo(new DiscardingSink<>());
        long t0 = System.nanoTime();
        env.execute("bench-" + run);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double steady = AT90_NS.get() > AT10_NS.get() && AT10_NS.get() > 0
                ? 0.8 * n / ((AT90_NS.get() - AT10_NS.get()) / 1e9)
                : Double.NaN;
        report(
                "  ceiling run p=%d: %.1f s, %.0f packets/s, steady %.0f packets/s, %,d packets counted (expected %,d)",
                parallelism, seconds, n / seconds, steady, SEEN.get(), n);
        return new double[] {n / seconds, steady};
    }

    /** The valid records (the job's triage, without its dead-letter side output). */
    private static final class Valid implements FlatMapFunction<Either<DeadLetter, FlowBatch>, FlowBatch> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(Either<DeadLetter, FlowBatch> in, Collector<FlowBatch> out) {
            if (in.isRight()) {
                out.collect(in.right());
            }
        }
    }

    /** Counts packets; emits nothing. */
    private static final class Count extends KeyedProcessFunction<String, FlowBatch, FlowBatch> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(FlowBatch batch, Context ctx, Collector<FlowBatch> out) {
            long before = SEEN.getAndAdd(batch.packets);
            long after = before + batch.packets;
            long n = total;
            if (before < n / 10 && after >= n / 10) {
                AT10_NS.compareAndSet(0, System.nanoTime());
            }
            if (before < n * 9 / 10 && after >= n * 9 / 10) {
                AT90_NS.compareAndSet(0, System.nanoTime());
            }
        }
    }
}
