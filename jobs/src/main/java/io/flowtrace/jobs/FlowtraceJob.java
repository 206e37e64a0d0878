package io.flowtrace.jobs;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackBranch;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowAnalysisFunction;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.input.DeadLetterLimits;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.input.InputTriage;
import io.flowtrace.jobs.input.InputWatermarks;
import io.flowtrace.jobs.input.JobInputs;
import io.flowtrace.jobs.openvpn.OpenVpnBranch;
import io.flowtrace.jobs.openvpn.OpenVpnRouting;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.OpenVpnSinks;
import io.flowtrace.jobs.output.OutageTolerantJdbcSink;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.jobs.window.FlowWindows;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;
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

    /**
     * Adds the pipeline to {@code env}, read top to bottom: inputs, TCP flow analysis, flow windows,
     * OpenVPN, conntrack, then every output to its sinks. Operator uids are fixed: savepoints map
     * state by them.
     */
    public void build(StreamExecutionEnvironment env) {
        if (config.getInt(JobOption.PARALLELISM) > 0) {
            env.setParallelism(config.getInt(JobOption.PARALLELISM));
        }
        // No operator keeps a reference to an input record after it returns, or changes one
        // (docs/job.md, "Object reuse"): chained operators pass records on without a deep copy.
        env.getConfig().enableObjectReuse();
        Duration outOfOrderness = config.getMillis(JobOption.OUT_OF_ORDERNESS_MS);
        Duration idleness = config.getMillis(JobOption.IDLENESS_MS);
        Duration maxFuture = config.getMillis(JobOption.MAX_FUTURE_MS);
        SingleOutputStreamOperator<FlowBatch> valid = JobInputs.validated(
                env,
                packets,
                InputWatermarks.packets(outOfOrderness, idleness, maxFuture),
                "packets",
                "decode-validate");
        SingleOutputStreamOperator<FlowBatch> tcp =
                valid.process(new OpenVpnRouting()).name("openvpn-routing").uid("openvpn-routing");
        SingleOutputStreamOperator<FlowSummary> flows = flowAnalysis(tcp);
        FlowWindows windows = FlowWindows.of(flows, config.getInt(JobOption.RESERVOIR_SIZE));
        OpenVpnBranch openVpn = OpenVpnBranch.of(tcp.getSideOutput(OpenVpnRouting.OPENVPN));
        DataStream<DeadLetter> deadLetters = valid.getSideOutput(InputTriage.DEAD_LETTERS)
                .union(flows.getSideOutput(FlowAnalysisFunction.DEAD_LETTERS), openVpn.deadLetters());

        sinkAll(flows, sinks.flows(), "flows");
        sinkAll(flows.getSideOutput(FlowAnalysisFunction.FLOW_ROWS), sinks.flowRows(), "flows");
        sinkAll(flows.getSideOutput(FlowAnalysisFunction.TCP_EVENTS), sinks.tcpEvents(), "tcp-events");
        sinkAll(windows.services(), sinks.serviceWindows(), "service-windows");
        sinkAll(windows.vantages(), sinks.vantageWindows(), "vantage-windows");
        sinkAll(openVpn.sessions(), openVpnSinks.sessions(), "openvpn-sessions");
        sinkAll(openVpn.serverWindows(), openVpnSinks.serverWindows(), "openvpn-server-windows");
        if (conntrack != null) {
            SingleOutputStreamOperator<ConntrackSample> samples = JobInputs.validated(
                    env,
                    conntrack,
                    InputWatermarks.conntrack(outOfOrderness, idleness, maxFuture),
                    "conntrack",
                    "conntrack-decode-validate");
            boolean join = config.getBoolean(JobOption.CONNTRACK_JOIN)
                    && !sinks.flowConntrack().isEmpty();
            ConntrackBranch ct = ConntrackBranch.of(samples, config, join, flows);
            sinkAll(ct.budgets(), sinks.conntrackBudgets(), "conntrack-budgets");
            if (join) {
                sinkAll(ct.joined(), sinks.flowConntrack(), "flow-conntrack");
            }
            deadLetters = deadLetters.union(samples.getSideOutput(InputTriage.DEAD_LETTERS));
        }
        DataStream<DeadLetter> bounded = deadLetters
                .process(new DeadLetterLimits(
                        config.getInt(JobOption.DEAD_LETTER_MAX_RAW_BYTES),
                        config.getInt(JobOption.DEAD_LETTERS_PER_SECOND)))
                .name("dead-letter-limits")
                .uid("dead-letter-limits");
        sinkAll(bounded, sinks.deadLetters(), "dead-letters");
    }

    /** The keyed TCP flow analysis with this job's analyser tunables, update interval and bounds; flow_summary rows only when a sink reads them, as flow-rows says. */
    private SingleOutputStreamOperator<FlowSummary> flowAnalysis(DataStream<FlowBatch> tcp) {
        return tcp.keyBy(new FlowKeySelector())
                .process(new FlowAnalysisFunction(
                        config.analyzerConfig(),
                        config.getLong(JobOption.UPDATE_INTERVAL_S) * 1000,
                        sinks.flowRows().isEmpty() ? null : config.flowRowPolicy(),
                        config.getInt(JobOption.MAX_FLOWS_PER_VANTAGE)))
                .name("flow-analysis")
                .uid("flow-analysis");
    }

    /**
     * Every sink of one output. A PostgreSQL sink ({@link OutageTolerantJdbcSink}) is a task of its
     * own with {@code jdbc-own-thread} (the default): chained, its synchronous {@code executeBatch}
     * and outage retries ran in the thread of the operator before it (flow analysis, windows), which
     * stopped analysing for every batch round trip (docs/BENCHMARKS.md "Job"). The uids do not
     * change, so savepoints restore either way.
     */
    private <T> void sinkAll(DataStream<T> stream, List<Sink<T>> targets, String output) {
        for (Sink<T> sink : targets) {
            String name = output + "-" + sink.getClass().getSimpleName();
            DataStreamSink<T> s = stream.sinkTo(sink).name(name).uid(name);
            if (sink instanceof OutageTolerantJdbcSink<?> && config.getBoolean(JobOption.JDBC_OWN_THREAD)) {
                s.disableChaining();
            }
        }
    }
}
