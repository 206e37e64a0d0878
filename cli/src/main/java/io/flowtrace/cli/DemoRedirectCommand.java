package io.flowtrace.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code flowtrace demo} is run by the {@code ./flowtrace} launcher from the demo module (it needs
 * Flink, Kafka and PostgreSQL, which this command line does not carry); reaching this class means the
 * agent jar was started directly, so it says how to run the demo instead.
 */
@Command(
        name = "demo",
        description = "Run the whole pipeline embedded (Kafka, PostgreSQL, Flink job, agents) on bundled"
                + " captures or your own: ./flowtrace demo --help (docs/demo.md).")
public final class DemoRedirectCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", hidden = true)
    List<String> ignored;

    @Override
    public Integer call() {
        System.err.println("""
                flowtrace demo runs from the launcher in the repository root, which builds and starts the demo module
                (Kafka, PostgreSQL and the Flink job in one JVM):
                  ./flowtrace demo [--pcap FILE...] [--report DIR] [--export-flows FILE] [--keep]
                See docs/demo.md.""");
        return 2;
    }
}
