package io.flowtrace.jobs;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowAnalysisFunction;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.join.ConntrackJoin;
import io.flowtrace.jobs.join.ConntrackJoinFunction;
import io.flowtrace.jobs.join.CtFacts;
import io.flowtrace.jobs.join.FlowConntrack;
import io.flowtrace.jobs.openvpn.OpenVpnRouting;
import io.flowtrace.jobs.openvpn.OpenVpnServerWindows;
import io.flowtrace.jobs.openvpn.OpenVpnSessionFunction;
import io.flowtrace.jobs.sink.JobSinks;
import io.flowtrace.jobs.sink.OpenVpnSinks;
import io.flowtrace.jobs.sink.PostgresSinks;
import io.flowtrace.jobs.source.EndOfInputWatermark;
import io.flowtrace.jobs.source.InputSources;
import io.flowtrace.jobs.source.InputTriage;
import io.flowtrace.jobs.source.InputWatermarks;
import io.flowtrace.jobs.window.ConntrackBudgetWindow;
import io.flowtrace.jobs.window.FlowWindowAggregate;
import io.flowtrace.jobs.window.WindowRecords;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flowtrace job (docs/job.md): packet records (per-flow PacketBatches or PacketEvents) from
 * Kafka → header validation (dead letters aside) → keyBy flow → per-flow TCP analysis → flow records, TCP events, per-service and per-vantage
 * windows → PostgreSQL and Kafka; conntrack events from Kafka → decode/validate/size → keyBy vantage →
 * 1 s and 1 min conntrack budgets → PostgreSQL and Kafka. The sources and the sinks are parameters,
 * so tests run the real pipeline on whatever they inject.
 */
public final class FlowtraceJob {
    private static final Logger LOG = LoggerFactory.getLogger(FlowtraceJob.class);
    /** Window lengths of the service and vantage aggregates (docs/job.md). */
    static final List<Duration> WINDOW_SIZES = List.of(Duration.ofSeconds(10), Duration.ofMinutes(1));

    private final JobConfig config;
    private final Source<Either<DeadLetter, FlowBatch>, ?, ?> packets;
    private final Source<Either<DeadLetter, ConntrackSample>, ?, ?> conntrack;
    private final JobSinks sinks;
    private OpenVpnSinks openVpnSinks = OpenVpnSinks.NONE;

    /** Packets only: no conntrack budgets. */
    public FlowtraceJob(JobConfig config, Source<Either<DeadLetter, FlowBatch>, ?, ?> packets, JobSinks sinks) {
        this(config, packets, null, sinks);
    }

    /** Packets and, when {@code conntrack} is not null, conntrack events and losses → budgets. */
    public FlowtraceJob(
            JobConfig config,
            Source<Either<DeadLetter, FlowBatch>, ?, ?> packets,
            Source<Either<DeadLetter, ConntrackSample>, ?, ?> conntrack,
            JobSinks sinks) {
        this.config = config;
        this.packets = packets;
        this.conntrack = conntrack;
        this.sinks = sinks;
    }

    /** Where the OpenVPN sessions and server windows go (none by default: the analysis still runs). */
    public FlowtraceJob withOpenVpnSinks(OpenVpnSinks sinks) {
        this.openVpnSinks = sinks;
        return this;
    }

    public static void main(String[] args) throws Exception {
        if (JobConfig.wantsHelp(args)) {
            System.out.print(JobConfig.usage());
            return;
        }
        JobConfig config = JobConfig.fromArgs(args);
        LOG.info("flowtrace job configuration: {}", config.describe());
        boolean planOnly = config.getBoolean(JobOption.PLAN_ONLY);
        if (!planOnly
                && config.getBoolean(JobOption.POSTGRES_OUTPUT)
                && config.getBoolean(JobOption.JDBC_INIT_SCHEMA)) {
            PostgresSinks.applySchema(config);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConfiguration(config));
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        config.getBoolean(JobOption.CONNTRACK_INPUT) ? InputSources.conntrack(config) : null,
                        JobSinks.fromConfig(config))
                .withOpenVpnSinks(OpenVpnSinks.fromConfig(config))
                .build(env);
        if (planOnly) {
            System.out.print(plan(env));
            return;
        }
        env.execute("flowtrace");
    }

    /**
     * The job graph as the client would submit it, one line per vertex (its chained operators and
     * parallelism). Building it serializes every operator, source and sink and creates every type
     * serializer, so a class missing from the jar fails here as it would on the cluster.
     */
    static String plan(StreamExecutionEnvironment env) {
        JobGraph graph = env.getStreamGraph().getJobGraph();
        StringBuilder out = new StringBuilder("flowtrace job graph: " + graph.getNumberOfVertices() + " vertices\n");
        for (JobVertex vertex : graph.getVerticesSortedTopologicallyFromSources()) {
            out.append("  ")
                    .append(vertex.getName())
                    .append(" (parallelism ")
                    .append(vertex.getParallelism())
                    .append(")\n");
        }
        return out.toString();
    }

    /** Checkpointing (on by default), restart strategy, state backend and parallelism from the options. */
    public static Configuration flinkConfiguration(JobConfig config) {
        Configuration flink = new Configuration();
        long interval = config.getLong(JobOption.CHECKPOINT_INTERVAL_MS);
        if (interval > 0) {
            flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(interval));
        }
        if (!config.get(JobOption.CHECKPOINT_DIR).isEmpty()) {
            flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.get(JobOption.CHECKPOINT_DIR));
        }
        if (!config.get(JobOption.STATE_BACKEND).isEmpty()) {
            flink.set(StateBackendOptions.STATE_BACKEND, config.get(JobOption.STATE_BACKEND));
        }
        restartStrategy(config, flink);
        return flink;
    }

    /**
     * Exponential delay by default: a dependency's outage (PostgreSQL, Kafka) fails the job again
     * and again while it lasts; 30 attempts at up to 60 s apart, each also spending the sinks'
     * jdbc-outage-tolerance-ms, survive outages far longer than 10 minutes (docs/reliability.md).
     */
    private static void restartStrategy(JobConfig config, Configuration flink) {
        int attempts = config.getInt(JobOption.RESTART_ATTEMPTS);
        String strategy = config.get(JobOption.RESTART_STRATEGY).strip();
        if (attempts == 0) {
            flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        } else if (strategy.equals("exponential-delay")) {
            flink.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
            flink.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, attempts);
            flink.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                    config.getMillis(JobOption.RESTART_DELAY_MS));
            flink.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                    config.getMillis(JobOption.RESTART_MAX_DELAY_MS));
        } else if (strategy.equals("fixed-delay")) {
            flink.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            flink.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
            flink.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    config.getMillis(JobOption.RESTART_DELAY_MS));
        } else {
            throw new IllegalArgumentException(
                    "--restart-strategy must be exponential-delay or fixed-delay, got '" + strategy + "'");
        }
    }

    /** Adds the pipeline to {@code env}. Operator uids are fixed: savepoints map state by them. */
    public void build(StreamExecutionEnvironment env) {
        if (config.getInt(JobOption.PARALLELISM) > 0) {
            env.setParallelism(config.getInt(JobOption.PARALLELISM));
        }
        // No operator keeps a reference to an input record after it returns, or changes one
        // (docs/job.md, "Object reuse"): chained operators pass records on without a deep copy.
        env.getConfig().enableObjectReuse();
        DataStream<Either<DeadLetter, FlowBatch>> packetInput = endOfInputWatermark(
                env.fromSource(
                                packets,
                                InputWatermarks.packets(
                                        config.getMillis(JobOption.OUT_OF_ORDERNESS_MS),
                                        config.getMillis(JobOption.IDLENESS_MS)),
                                "packets")
                        .uid("packets-source"),
                "packets");
        SingleOutputStreamOperator<FlowBatch> valid = packetInput
                .process(InputTriage.of(packetInput.getType()))
                .name("decode-validate")
                .uid("decode-validate");
        SingleOutputStreamOperator<FlowBatch> tcp =
                valid.process(new OpenVpnRouting()).name("openvpn-routing").uid("openvpn-routing");
        SingleOutputStreamOperator<FlowSummary> flows = tcp.keyBy(new FlowKeySelector())
                .process(new FlowAnalysisFunction(
                        config.analyzerConfig(), config.getLong(JobOption.UPDATE_INTERVAL_S) * 1000))
                .name("flow-analysis")
                .uid("flow-analysis");
        DataStream<FlowSummary> ended =
                flows.flatMap(new FinalRecords()).name("ended-flows").uid("ended-flows");

        DataStream<ServiceWindow> services = null;
        DataStream<VantageWindow> vantages = null;
        int reservoir = config.getInt(JobOption.RESERVOIR_SIZE);
        for (Duration size : WINDOW_SIZES) {
            String suffix = "-" + size.toSeconds() + "s";
            DataStream<ServiceWindow> s = ended.keyBy(new ServiceKey())
                    .window(TumblingEventTimeWindows.of(size))
                    .aggregate(new FlowWindowAggregate(reservoir), new WindowRecords.ServiceWindows())
                    .name("service-windows" + suffix)
                    .uid("service-windows" + suffix);
            DataStream<VantageWindow> v = ended.keyBy(new VantageKey())
                    .window(TumblingEventTimeWindows.of(size))
                    .aggregate(new FlowWindowAggregate(reservoir), new WindowRecords.VantageWindows())
                    .name("vantage-windows" + suffix)
                    .uid("vantage-windows" + suffix);
            services = services == null ? s : services.union(s);
            vantages = vantages == null ? v : vantages.union(v);
        }

        sinkAll(flows, sinks.flows(), "flows");
        sinkAll(flows.getSideOutput(FlowAnalysisFunction.TCP_EVENTS), sinks.tcpEvents(), "tcp-events");
        sinkAll(services, sinks.serviceWindows(), "service-windows");
        sinkAll(vantages, sinks.vantageWindows(), "vantage-windows");
        SingleOutputStreamOperator<OpenVpnSessionRecord> openVpnSessions = openVpn(tcp, reservoir);
        DataStream<DeadLetter> deadLetters = valid.getSideOutput(InputTriage.DEAD_LETTERS)
                .union(
                        flows.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS),
                        openVpnSessions.getSideOutput(OpenVpnSessionFunction.DEAD_LETTERS));
        if (conntrack != null) {
            DataStream<Either<DeadLetter, ConntrackSample>> conntrackInput = endOfInputWatermark(
                    env.fromSource(
                                    conntrack,
                                    InputWatermarks.conntrack(
                                            config.getMillis(JobOption.OUT_OF_ORDERNESS_MS),
                                            config.getMillis(JobOption.IDLENESS_MS)),
                                    "conntrack")
                            .uid("conntrack-source"),
                    "conntrack");
            SingleOutputStreamOperator<ConntrackSample> samples = conntrackInput
                    .process(InputTriage.of(conntrackInput.getType()))
                    .name("conntrack-decode-validate")
                    .uid("conntrack-decode-validate");
            DataStream<ConntrackSample> budgetInput = samples.map(new WithoutJoin())
                    .name("conntrack-budget-input")
                    .uid("conntrack-budget-input");
            DataStream<BudgetWindow> budgets =
                    ConntrackBudgetWindow.budgets(budgetInput, ConntrackBudgetWindow.fromConfig(config));
            sinkAll(budgets, sinks.conntrackBudgets(), "conntrack-budgets");
            deadLetters = deadLetters.union(samples.getSideOutput(InputTriage.DEAD_LETTERS));
            if (config.getBoolean(JobOption.CONNTRACK_JOIN)
                    && !sinks.flowConntrack().isEmpty()) {
                DataStream<CtFacts> facts = samples.flatMap(new JoinKeys())
                        .name("conntrack-join-keys")
                        .uid("conntrack-join-keys");
                DataStream<FlowConntrack> joined = flows.keyBy(new FlowJoinKey())
                        .connect(facts.keyBy(new CtJoinKey()))
                        .process(new ConntrackJoinFunction(
                                config.getLong(JobOption.CONNTRACK_JOIN_WAIT_MS),
                                config.getLong(JobOption.CONNTRACK_JOIN_IDLE_MS),
                                config.getLong(JobOption.CONNTRACK_JOIN_SLACK_MS),
                                config.getInt(JobOption.CONNTRACK_JOIN_MAX_PER_KEY)))
                        .name("conntrack-join")
                        .uid("conntrack-join");
                sinkAll(joined, sinks.flowConntrack(), "flow-conntrack");
            }
        }
        sinkAll(deadLetters, sinks.deadLetters(), "dead-letters");
    }

    /**
     * OpenVPN: the routed OpenVpnBatches keyed by UDP flow → sessions → per-server windows (10 s,
     * 1 min) → the OpenVPN sinks. Returns the sessions (their side output holds the dead letters).
     */
    private SingleOutputStreamOperator<OpenVpnSessionRecord> openVpn(
            SingleOutputStreamOperator<FlowBatch> routed, int reservoir) {
        SingleOutputStreamOperator<OpenVpnSessionRecord> sessions = routed.getSideOutput(OpenVpnRouting.OPENVPN)
                .keyBy(new FlowKeySelector())
                .process(new OpenVpnSessionFunction())
                .name("openvpn-sessions")
                .uid("openvpn-sessions");
        DataStream<OpenVpnServerWindow> windows = null;
        for (Duration size : WINDOW_SIZES) {
            String suffix = "-" + size.toSeconds() + "s";
            DataStream<OpenVpnServerWindow> w = sessions.keyBy(new OpenVpnServerWindows.ServerKey())
                    .window(TumblingEventTimeWindows.of(size))
                    .process(new OpenVpnServerWindows())
                    .name("openvpn-server-windows" + suffix)
                    .uid("openvpn-server-windows" + suffix);
            windows = windows == null ? w : windows.union(w);
        }
        sinkAll(sessions, openVpnSinks.sessions(), "openvpn-sessions");
        sinkAll(windows, openVpnSinks.serverWindows(), "openvpn-server-windows");
        return sessions;
    }

    /** The final watermark at end of input, even from a source that was idle then ({@link EndOfInputWatermark}). */
    private static <T> DataStream<T> endOfInputWatermark(DataStream<T> source, String name) {
        return source.transform(name + "-end-of-input", source.getType(), new EndOfInputWatermark<>())
                .uid(name + "-end-of-input");
    }

    private static <T> void sinkAll(DataStream<T> stream, List<Sink<T>> targets, String output) {
        for (Sink<T> sink : targets) {
            String name = output + "-" + sink.getClass().getSimpleName();
            stream.sinkTo(sink).name(name).uid(name);
        }
    }

    /**
     * The windows aggregate flows once, when they end, from the flow record alone: the copy they get
     * leaves out the {@code analyze --json} text (only the flow_summary row needs it), which each of
     * the four window shuffles would otherwise serialize again.
     */
    static final class FinalRecords implements FlatMapFunction<FlowSummary, FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(FlowSummary summary, Collector<FlowSummary> out) {
            if (summary.finalRecord) {
                out.collect(new FlowSummary(summary.record, null, summary.latePackets, true));
            }
        }
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
            return ConntrackJoin.key(
                    s.record.getFlow().getVantage().getAgentId(),
                    s.record.getFlow().getClient(),
                    s.record.getFlow().getServer());
        }
    }

    static final class CtJoinKey implements KeySelector<CtFacts, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(CtFacts f) {
            return f.joinKey;
        }
    }

    /** Per vantage and service: a connection seen at two vantage points is two flows. */
    static final class ServiceKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return PacketEvents.vantage(s.record.getFlow().getVantage()) + " "
                    + s.record.getFlow().getServer();
        }
    }

    static final class VantageKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return PacketEvents.vantage(s.record.getFlow().getVantage());
        }
    }
}
