package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.metrics.AgentMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real tcpdump with the agent's command line: a {@code --packets-filter} that starts with '-'
 * (here {@code -w FILE}, which would make tcpdump write the capture to a file of the caller's choice)
 * is a filter expression, refused as one, not an option. Needs tcpdump and the right to capture on lo.
 */
class TcpdumpFilterITCase {
    @Test
    void aFilterThatLooksLikeAnOptionIsReadAsAFilter(@TempDir Path tmp) throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/tcpdump")) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "tcpdump is not installed");
        Path planted = tmp.resolve("planted.pcap");
        TcpdumpSupervisor t = new TcpdumpSupervisor("tcpdump", "lo", 128, "-w" + planted, new AgentMetrics(), 0);
        Process p = new ProcessBuilder(t.command())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        boolean exited = p.waitFor(30, TimeUnit.SECONDS);
        String err = new String(p.getErrorStream().readNBytes(4096), StandardCharsets.UTF_8);
        if (!exited) {
            p.destroyForcibly().waitFor();
        }
        assumeTrue(
                !err.contains("Operation not permitted") && !err.contains("permission"),
                "no capture permission: " + err);
        assertThat(exited).as("tcpdump refused the filter and exited: %s", err).isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(err).contains("syntax error");
        assertThat(planted).doesNotExist();
    }
}
