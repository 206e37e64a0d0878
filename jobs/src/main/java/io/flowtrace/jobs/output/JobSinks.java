package io.flowtrace.jobs.output;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.join.FlowConntrack;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;

/**
 * Where each output of the job goes: any number of sinks per output. Production builds them from
 * the configuration ({@link #fromConfig}); tests may pass their own. {@code flows} gets every
 * version of every flow (the Kafka flows topic); {@code flowRows} the PostgreSQL flow_summary rows
 * the output policy writes (docs/job.md, "Flow rows in PostgreSQL").
 */
public record JobSinks(
        List<Sink<FlowSummary>> flows,
        List<Sink<TcpEvent>> tcpEvents,
        List<Sink<ServiceWindow>> serviceWindows,
        List<Sink<VantageWindow>> vantageWindows,
        List<Sink<DeadLetter>> deadLetters,
        List<Sink<BudgetWindow>> conntrackBudgets,
        List<Sink<FlowConntrack>> flowConntrack,
        List<Sink<FlowRow>> flowRows) {

    /** Without flow_summary rows. */
    public JobSinks(
            List<Sink<FlowSummary>> flows,
            List<Sink<TcpEvent>> tcpEvents,
            List<Sink<ServiceWindow>> serviceWindows,
            List<Sink<VantageWindow>> vantageWindows,
            List<Sink<DeadLetter>> deadLetters,
            List<Sink<BudgetWindow>> conntrackBudgets,
            List<Sink<FlowConntrack>> flowConntrack) {
        this(flows, tcpEvents, serviceWindows, vantageWindows, deadLetters, conntrackBudgets, flowConntrack, List.of());
    }

    /** Without a sink for the conntrack ↔ flow join (the join is then not built). */
    public JobSinks(
            List<Sink<FlowSummary>> flows,
            List<Sink<TcpEvent>> tcpEvents,
            List<Sink<ServiceWindow>> serviceWindows,
            List<Sink<VantageWindow>> vantageWindows,
            List<Sink<DeadLetter>> deadLetters,
            List<Sink<BudgetWindow>> conntrackBudgets) {
        this(flows, tcpEvents, serviceWindows, vantageWindows, deadLetters, conntrackBudgets, List.of());
    }

    /** Without conntrack budget sinks (a job without the conntrack input). */
    public JobSinks(
            List<Sink<FlowSummary>> flows,
            List<Sink<TcpEvent>> tcpEvents,
            List<Sink<ServiceWindow>> serviceWindows,
            List<Sink<VantageWindow>> vantageWindows,
            List<Sink<DeadLetter>> deadLetters) {
        this(flows, tcpEvents, serviceWindows, vantageWindows, deadLetters, List.of(), List.of());
    }

    /** PostgreSQL and/or Kafka, as {@code --postgres-output} and {@code --kafka-output} say. */
    public static JobSinks fromConfig(JobConfig config) {
        boolean pg = config.getBoolean(JobOption.POSTGRES_OUTPUT);
        boolean kafka = config.getBoolean(JobOption.KAFKA_OUTPUT);
        PostgresSinks postgres = new PostgresSinks(config);
        KafkaOutputs topics = new KafkaOutputs(config);
        return new JobSinks(
                both(null, kafka ? topics.flows() : null),
                both(pg ? postgres.tcpEvents() : null, kafka ? topics.tcpEvents() : null),
                both(pg ? postgres.serviceWindows() : null, kafka ? topics.serviceWindows() : null),
                both(pg ? postgres.vantageWindows() : null, kafka ? topics.vantageWindows() : null),
                both(pg ? postgres.deadLetters() : null, kafka ? topics.deadLetters() : null),
                both(pg ? postgres.conntrackBudgets() : null, kafka ? topics.conntrackBudgets() : null),
                // PostgreSQL only: the join has no Kafka contract yet (docs/conntrack.md "Join").
                both(pg ? postgres.flowConntrack() : null, null),
                both(pg ? postgres.flowRows() : null, null));
    }

    private static <T> List<Sink<T>> both(Sink<T> a, Sink<T> b) {
        if (a != null && b != null) {
            return List.of(a, b);
        }
        return a != null ? List.of(a) : b != null ? List.of(b) : List.of();
    }
}
