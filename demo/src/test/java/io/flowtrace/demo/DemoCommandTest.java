package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {
    private static final Path HOME = Bundled.home();

    @Test
    void bundledRunReplaysThreeTcpCapturesAnOpenVpnCaptureAndTwoConntrackRecordings() {
        DemoCommand cmd = new DemoCommand();
        new CommandLine(cmd).parseArgs();
        Demo.Settings s = cmd.settings();
        assertThat(s.captures())
                .extracting(Capture::agentId)
                .containsExactly("cubic-loss", "short-conns", "rwnd-limited", "ovpn-push-100k");
        assertThat(s.captures()).allSatisfy(c -> assertThat(c.file()).isRegularFile());
        assertThat(s.conntrack())
                .extracting(c -> c.file().getFileName().toString())
                .containsExactly("v4_plain.nl.bin", "burst.nl.bin");
        assertThat(s.keep()).isFalse();
        assertThat(s.parallelism()).isEqualTo(2);
    }

    @Test
    void onePcapIsPublishedAsAnalyzeNamesItsVantage() {
        DemoCommand cmd = new DemoCommand();
        Path file = HOME.resolve("testdata/tcp/cubic-loss.sender.pcap.gz");
        new CommandLine(cmd).parseArgs("--pcap", file.toString(), "--export-flows", "x.jsonl");
        Demo.Settings s = cmd.settings();
        // analyze's default --agent-id is "local": the same flows get the same vantage "local/if0"
        assertThat(s.captures()).extracting(Capture::agentId).containsExactly("local");
        assertThat(s.conntrack()).isEmpty();
        assertThat(s.exportFile()).isEqualTo(Path.of("x.jsonl"));
    }

    @Test
    void severalPcapsKeepTheirFlowsApartByFileName() {
        DemoCommand cmd = new DemoCommand();
        new CommandLine(cmd)
                .parseArgs(
                        "--pcap",
                        HOME.resolve("testdata/tcp/cubic-loss.sender.pcap.gz").toString(),
                        HOME.resolve("testdata/tcp/cubic-loss.receiver.pcap.gz").toString());
        assertThat(cmd.settings().captures())
                .extracting(Capture::agentId)
                .containsExactly("cubic-loss.sender", "cubic-loss.receiver");
    }

    @Test
    void missingPcapIsAClearErrorNotACrash(@org.junit.jupiter.api.io.TempDir Path tmp) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli =
                new CommandLine(new DemoCommand(System.out, new PrintStream(err, true, StandardCharsets.UTF_8)));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        // the demo takes its lock before it checks its options: a private one (a real demo may be running)
        System.setProperty("flowtrace.demo.lock", tmp.resolve("demo.lock").toString());
        int status;
        try {
            status = cli.execute("--allow-root", "--pcap", "/nonexistent/capture.pcap");
        } finally {
            System.clearProperty("flowtrace.demo.lock");
        }
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--pcap /nonexistent/capture.pcap: no such file");
    }

    @Test
    void secondDemoWhileOneRunsGetsAClearMessageAndNonZeroStatus(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        // a private lock file: a real demo running on this machine must not make the test fail
        System.setProperty("flowtrace.demo.lock", tmp.resolve("demo.lock").toString());
        try {
            holdLockAndStartSecondDemo();
        } finally {
            System.clearProperty("flowtrace.demo.lock");
        }
    }

    private static void holdLockAndStartSecondDemo() throws Exception {
        try (DemoLock held = DemoLock.acquire(DemoLock.defaultPath())) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = new CommandLine(
                            new DemoCommand(System.out, new PrintStream(err, true, StandardCharsets.UTF_8)))
                    .execute("--allow-root", "-q");
            assertThat(status).isEqualTo(4);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("another flowtrace demo is already running")
                    .contains(DemoLock.defaultPath().toString());
        }
        // released: it can be taken again
        DemoLock.acquire(DemoLock.defaultPath()).close();
    }
}
