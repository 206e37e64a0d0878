package io.flowtrace.jobs.conntrack;

import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.join.ConntrackJoin;
import io.flowtrace.jobs.join.ConntrackJoinFunction;
import io.flowtrace.jobs.join.CtFacts;
import io.flowtrace.jobs.join.FlowConntrack;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.Collector;

/**
 * The conntrack half of the job (docs/job.md, "Conntrack budgets" and "Conntrack ↔ flow join"):
 * the validated samples → per-vantage budget windows, and, when asked for, every TCP event's facts
 * joined with the flow records by tuple.
 *
 * @param joined null when the join is not built
 */
public record ConntrackBranch(DataStream<BudgetWindow> budgets, DataStream<FlowConntrack> joined) {

    /** @param join whether to build the join (option on and a flow_conntrack sink to write to) */
    public static ConntrackBranch of(
            SingleOutputStreamOperator<ConntrackSample> samples,
            JobConfig config,
            boolean join,
            DataStream<FlowSummary> flows) {
        DataStream<ConntrackSample> budgetInput =
                samples.map(new WithoutJoin()).name("conntrack-budget-input").uid("conntrack-budget-input");
        DataStream<BudgetWindow> budgets =
                ConntrackBudgetWindow.budgets(budgetInput, ConntrackBudgetWindow.fromConfig(config));
        return new ConntrackBranch(budgets, join ? join(samples, config, flows) : null);
    }

    private static DataStream<FlowConntrack> join(
            DataStream<ConntrackSample> samples, JobConfig config, DataStream<FlowSummary> flows) {
        DataStream<CtFacts> facts =
                samples.flatMap(new JoinKeys()).name("conntrack-join-keys").uid("conntrack-join-keys");
        return flows.keyBy(new FlowJoinKey())
                .connect(facts.keyBy(new CtJoinKey()))
                .process(new ConntrackJoinFunction(
                        config.getLong(JobOption.CONNTRACK_JOIN_WAIT_MS),
                        config.getLong(JobOption.CONNTRACK_JOIN_IDLE_MS),
                        config.getLong(JobOption.CONNTRACK_JOIN_SLACK_MS),
                        config.getInt(JobOption.CONNTRACK_JOIN_MAX_PER_KEY)))
                .name("conntrack-join")
                .uid("conntrack-join");
    }

    /** The budget windows keep samples without the join's facts. */
    static final class WithoutJoin implements MapFunction<ConntrackSample, ConntrackSample> {
        private static final long serialVersionUID = 1L;

        @Override
        public ConntrackSample map(ConntrackSample s) {
            return s.withoutJoin();
        }
    }

    /** A TCP conntrack event, once per tuple it can be seen by ({@link ConntrackJoin#keys}). */
    static final class JoinKeys implements FlatMapFunction<ConntrackSample, CtFacts> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(ConntrackSample s, Collector<CtFacts> out) {
            if (s.join != null) {
                ConntrackJoin.keys(s.join).forEach(out::collect);
            }
        }
    }

    static final class FlowJoinKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return ConntrackJoin.key(s.agentId, s.client, s.server);
        }
    }

    static final class CtJoinKey implements KeySelector<CtFacts, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(CtFacts f) {
            return f.joinKey;
        }
    }
}
