package io.flowtrace.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code flowtrace cluster} is run by the {@code ./flowtrace} launcher (scripts/cluster.sh: separate
 * Kafka, PostgreSQL and Flink processes on this machine); reaching this class means the agent jar was
 * started directly, so it says how to run it instead. Listed here so that {@code --help} shows it.
 */
@Command(
        name = "cluster",
        description = "Start, inspect and stop a real local cluster (Kafka, PostgreSQL, Flink JobManager and"
                + " TaskManagers as separate processes): ./flowtrace cluster up|status|flink ARGS|down"
                + " (docs/operations.md).")
public final class ClusterRedirectCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", hidden = true)
    List<String> ignored;

    @Override
    public Integer call() {
        System.err.println("""
                flowtrace cluster runs from the launcher in the repository root (scripts/cluster.sh):
                  ./flowtrace cluster up [--ha] [TASKMANAGERS] [SLOTS] | status | flink ARGS... | down
                See docs/operations.md, "Run the pipeline on a real cluster locally".""");
        return 2;
    }
}
