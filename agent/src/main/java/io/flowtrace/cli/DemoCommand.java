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
                What exists today: the analysis core, offline:  ./flowtrace analyze testdata/decoding/tcp4-sack.pcap
                Still missing for the demo: the Flink job (Kafka -> per-flow analysis -> PostgreSQL/Kafka sinks),
                the capture agents, and the embedded Kafka/PostgreSQL/MiniCluster launcher.""");
        return 3;
    }
}
