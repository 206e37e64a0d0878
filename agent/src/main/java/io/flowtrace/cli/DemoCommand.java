package io.flowtrace.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until the embedded demo lands (issue "Embedded default"): says what is missing. */
@Command(name = "demo", description = "Run the whole pipeline embedded on bundled captures (not yet available).")
final class DemoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("""
                flowtrace demo is not available yet.
                What exists today: the offline analysis (./flowtrace analyze testdata/tcp/cubic-loss.sender.pcap.gz),
                the capture agents (./flowtrace agent packets|conntrack), the Flink job (jobs/target/flowtrace-job.jar)
                and their end-to-end tests on an in-process Kafka, PostgreSQL and Flink MiniCluster.
                Still missing for the demo: one command that starts those embedded services, replays the bundled
                captures through the agents into the job, and prints and renders the results.""");
        return 3;
    }
}
