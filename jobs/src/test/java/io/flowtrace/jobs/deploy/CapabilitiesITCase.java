package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.packets.TcpdumpSupervisor;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agents' real command lines with exactly the capabilities deploy/k8s/50-agent-daemonset.yaml
 * grants each container, in a network namespace of the test's own. A container that runs as uid 0
 * with {@code capabilities: {drop: [ALL], add: [X]}} and {@code allowPrivilegeEscalation: false} gets
 * X as its bounding, permitted and effective sets, an empty inheritable and ambient set (containerd
 * and CRI-O since the CVE-2022-24769 fixes) and no_new_privs; {@code setpriv --bounding-set -all,+X
 * --inh-caps -all --no-new-privs} started as root gives a program exactly that. Needs root, setpriv,
 * iproute2, tcpdump, nft and bash; skipped otherwise (.ci/run installs tcpdump and nftables).
 */
class CapabilitiesITCase {
    private String ns;

    @BeforeEach
    void namespace() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root (network namespaces, setpriv)");
        for (String tool : List.of("setpriv", "ip", "tcpdump", "nft", "bash")) {
            assumeTrue(onPath(tool) != null, "needs " + tool + " on the PATH");
        }
        ns = "flowtrace-caps-" + ProcessHandle.current().pid();
        assumeTrue(run("ip", "netns", "add", ns) == 0, "cannot create a network namespace");
        assertThat(run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"))
                .isZero();
    }

    @AfterEach
    void removeNamespace() throws Exception {
        if (ns != null) {
            run("ip", "netns", "del", ns);
        }
    }

    /** Debian's tcpdump opens the capture as root, then switches to user tcpdump (setuid/setgid). */
    @Test
    void tcpdumpCapturesWithThePacketsContainersCapabilities() throws Exception {
        Map<String, Object> container = container("packets");
        List<Object> args = Yaml.list(container.get("args"), "args");
        String iface = args.get(args.indexOf("--iface") + 1).toString();
        if (iface.equals("$(FLOWTRACE_IFACE)")) { // from the parameters ConfigMap
            iface = Yaml.string(parameters(), "data.agent-iface");
        }
        int snaplen = Integer.parseInt(args.get(args.indexOf("--snaplen") + 1).toString());
        String filter = args.get(args.indexOf("--filter") + 1).toString();
        List<String> tcpdump =
                new TcpdumpSupervisor("tcpdump", iface, snaplen, filter, new AgentMetrics(), 0).command();

        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        cmd.addAll(setpriv(container));
        cmd.addAll(tcpdump);
        Path pcap = Files.createTempFile("caps", ".pcap");
        Path stderr = Files.createTempFile("caps", ".err");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(pcap.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            // tcpdump says "listening on ..." once the capture is open (and after it changed user).
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (p.isAlive() && !Files.readString(stderr).contains("listening on") && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(p.isAlive())
                    .as("tcpdump %s still runs; its stderr: %s", cmd, Files.readString(stderr))
                    .isTrue();
            // Ten connection attempts to a closed port on the namespace's loopback: a SYN and a RST each.
            assertThat(run(
                            "ip",
                            "netns",
                            "exec",
                            ns,
                            "bash",
                            "-c",
                            "for i in 1 2 3 4 5 6 7 8 9 10; do (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null; done; true"))
                    .isZero();
            Thread.sleep(500);
            p.destroy(); // SIGTERM: tcpdump writes what it has and exits
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(stderr))
                    .doesNotContain("Couldn't change to")
                    .doesNotContain("Operation not permitted");
            // 10 SYNs and 10 RSTs; "any" sees each loopback packet once per direction it is counted in (>= 20).
            assertThat(packets(pcap))
                    .as("packets tcpdump captured; stderr: %s", Files.readString(stderr))
                    .isGreaterThanOrEqualTo(20);
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(pcap);
            Files.deleteIfExists(stderr);
        }
    }

    /**
     * The agent signals its tcpdump (SIGUSR1 every stats interval for the kernel's drop count,
     * SIGTERM at shutdown) after tcpdump has switched to its own user: a root process without
     * CAP_KILL may not, so the live drop statistics never came and shutdown waited for the grace
     * period's end (#32). Here a shell with the packets container's capability set starts the
     * DaemonSet's tcpdump command and signals it as the agent does; both signals must be delivered.
     */
    @Test
    void theAgentMaySignalItsTcpdumpWithThePacketsContainersCapabilities() throws Exception {
        Map<String, Object> container = container("packets");
        List<String> tcpdump = new TcpdumpSupervisor("tcpdump", "lo", 96, "tcp", new AgentMetrics(), 0).command();
        String script = "\"$@\" >/dev/null 2>\"$ERR\" & pid=$!;"
                + " for i in $(seq 300); do grep -q 'listening on' \"$ERR\" && break; sleep 0.1; done;"
                + " [ \"$(stat -c %U /proc/$pid)\" != root ] || exit 10;" // tcpdump has dropped root
                + " kill -USR1 $pid || exit 11; sleep 1; kill -TERM $pid || exit 12; wait $pid; exit 0";
        Path stderr = Files.createTempFile("caps-signal", ".err");
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, "env", "ERR=" + stderr));
        cmd.addAll(setpriv(container));
        cmd.addAll(List.of("bash", "-c", script, "bash"));
        cmd.addAll(tcpdump);
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("signalled tcpdump exits")
                    .isTrue();
            assertThat(p.exitValue())
                    .as(
                            "10: tcpdump still root, 11: SIGUSR1 refused, 12: SIGTERM refused; tcpdump's stderr: %s",
                            Files.readString(stderr))
                    .isZero();
            // SIGUSR1 makes tcpdump print its counters once, the exit a second time
            assertThat(Files.readString(stderr).split("packets received by filter", -1))
                    .as("statistics blocks in tcpdump's stderr: %s", Files.readString(stderr))
                    .hasSize(3);
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    /** The raw ctnetlink source joins the event groups and forces its receive buffer with NET_ADMIN. */
    @Test
    void ctnetlinkSourceReadsEventsWithTheConntrackContainersCapabilities() throws Exception {
        Map<String, Object> container = container("conntrack");
        List<Object> args = Yaml.list(container.get("args"), "args");
        int rcvbuf = Integer.parseInt(args.get(args.indexOf("--rcvbuf") + 1).toString());
        // The namespace tracks connections only once a rule uses conntrack.
        assertThat(
                        run(
                                "ip",
                                "netns",
                                "exec",
                                ns,
                                "nft",
                                "add table inet caps; add chain inet caps out "
                                        + "{ type filter hook output priority 0; }; add rule inet caps out ct state new counter accept"))
                .isZero();

        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        cmd.addAll(setpriv(container));
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                CtnetlinkProbe.class.getName(),
                String.valueOf(rcvbuf),
                "30",
                "5"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String first = r.readLine();
            out.add(first);
            assertThat(first).as("probe output %s", out).startsWith("rcvbuf ");
            // SO_RCVBUFFORCE took the request beyond rmem_max: the kernel reports twice the request.
            assertThat(Integer.parseInt(first.substring(7))).isEqualTo(2 * rcvbuf);
            assertThat(run(
                            "ip",
                            "netns",
                            "exec",
                            ns,
                            "bash",
                            "-c",
                            "for i in 1 2 3 4 5; do (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null; done; true"))
                    .isZero();
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.add(line);
            }
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("probe output %s", out).isZero();
        assertThat(out)
                .as("five connections make at least five NEW events")
                .anyMatch(l -> l.matches("events ([5-9]|\\d{2,})"));
    }

    private static List<String> setpriv(Map<String, Object> container) {
        List<Object> add = Yaml.list(Yaml.at(container, "securityContext.capabilities.add"), "add");
        assertThat(Yaml.list(Yaml.at(container, "securityContext.capabilities.drop"), "drop"))
                .containsExactly("ALL");
        assertThat(Yaml.at(container, "securityContext.runAsUser")).isEqualTo(0);
        StringBuilder caps = new StringBuilder("-all");
        for (Object c : add) {
            caps.append(",+").append(c.toString().toLowerCase(Locale.ROOT));
        }
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--bounding-set", caps.toString(), "--inh-caps", "-all"));
        if (Boolean.FALSE.equals(Yaml.at(container, "securityContext.allowPrivilegeEscalation"))) {
            cmd.add("--no-new-privs");
        }
        cmd.add("--");
        return cmd;
    }

    private static Map<String, Object> container(String name) {
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/50-agent-daemonset.yaml"))) {
            for (Object c : Yaml.list(Yaml.at(doc, "spec.template.spec.containers"), "containers")) {
                if (name.equals(Yaml.map(c, "container").get("name"))) {
                    return Yaml.map(c, "container");
                }
            }
        }
        throw new AssertionError("no container " + name + " in 50-agent-daemonset.yaml");
    }

    private static Map<String, Object> parameters() {
        return Yaml.documents(RepoFiles.path("deploy/k8s/05-parameters.yaml")).get(0);
    }

    private static long packets(Path pcap) throws IOException {
        long n = 0;
        try (InputStream in = Files.newInputStream(pcap);
                CaptureReader reader = CaptureReader.open(in, CaptureErrorListener.IGNORE)) {
            CaptureRecord record = new CaptureRecord();
            while (reader.next(record)) {
                n++;
            }
        } catch (io.flowtrace.core.pcap.CaptureFormatException e) {
            throw new AssertionError("tcpdump's output is no capture: " + e.getMessage(), e);
        }
        return n;
    }

    private static Path onPath(String tool) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin").split(":")) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static int run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
