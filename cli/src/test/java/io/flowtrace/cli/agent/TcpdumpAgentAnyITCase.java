package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.packets.PacketRecordWeight;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.agent.spool.SpoolRecord;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flowtrace agent packets --iface any} live, as a process run inside a node namespace whose two
 * pods hang off a bridge (the layout of scripts/capture-any-bridge.sh): the agent's tcpdump captures each
 * packet once per interface it crosses, and the agent publishes each interface as a vantage named as the
 * namespace's kernel names it ({@code ip -o link}), each flow with one interface's copy of the
 * connection: the 20 bytes the client sent and the 20,000 its server answered (written below), once.
 * No broker: the agent spools, and the spool is read. Needs root, iproute2, tcpdump and python3.
 */
class TcpdumpAgentAnyITCase {
    private static final String NODE = "10.79.0.1";
    private static final String POD1 = "10.79.0.11";
    private static final String POD2 = "10.79.0.12";

    private final String suffix = Long.toString(ProcessHandle.current().pid());
    private final String node = "ftany-node-" + suffix;
    private final List<String> namespaces = List.of(node, "ftany-pod1-" + suffix, "ftany-pod2-" + suffix);

    @TempDir
    Path tmp;

    @BeforeEach
    void bridgeWithTwoPods() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/tcpdump")) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "needs tcpdump (apt-get install tcpdump)");
        assumeTrue(AgentOutput.sh("python3", "-c", "pass") == 0, "needs python3");
        assumeTrue(AgentOutput.sh("ip", "netns", "add", node) == 0, "cannot create a network namespace");
        ok("ip", "netns", "add", namespaces.get(1));
        ok("ip", "netns", "add", namespaces.get(2));
        for (String ns : namespaces) {
            ok("ip", "-n", ns, "link", "set", "lo", "up");
        }
        ok("ip", "-n", node, "link", "add", "br0", "type", "bridge");
        ok("ip", "-n", node, "addr", "add", NODE + "/24", "dev", "br0");
        String[][] pods = {{namespaces.get(1), "vpod1", POD1}, {namespaces.get(2), "vpod2", POD2}};
        for (String[] pod : pods) {
            ok("ip", "link", "add", "eth0", "netns", pod[0], "type", "veth", "peer", "name", pod[1], "netns", node);
            ok("ip", "-n", pod[0], "addr", "add", pod[2] + "/24", "dev", "eth0");
            ok("ip", "-n", node, "link", "set", pod[1], "master", "br0");
            ok("ip", "-n", pod[0], "link", "set", "eth0", "up");
            ok("ip", "-n", node, "link", "set", pod[1], "up");
        }
        ok("ip", "-n", node, "link", "set", "br0", "up");
    }

    @AfterEach
    void removeNamespaces() throws Exception {
        for (String ns : namespaces) {
            AgentOutput.sh("ip", "netns", "del", ns);
        }
    }

    @Test
    void eachInterfaceOfAnyIsAVantageNamedAsTheKernelNamesIt() throws Exception {
        Path spool = tmp.resolve("spool");
        String java = ProcessHandle.current().info().command().orElse("java");
        // The whole agent in the node's namespace, as a DaemonSet pod with hostNetwork is in the node's:
        // its tcpdump captures there and /sys/class/net lists that namespace's interfaces.
        Process agent = new ProcessBuilder(
                        "ip",
                        "netns",
                        "exec",
                        node,
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.flowtrace.cli.FlowtraceCli",
                        "agent",
                        "packets",
                        "--iface",
                        "any",
                        "--filter",
                        "tcp and not port 9", // not the agent's own tries to reach the absent broker
                        "--bootstrap-servers",
                        "127.0.0.1:9",
                        "--agent-id",
                        "node",
                        "--spool-dir",
                        spool.toString(),
                        "--shutdown-timeout",
                        "1")
                .redirectErrorStream(true)
                .start();
        AgentOutput output = AgentOutput.follow(agent);
        output.await("listening on any", 60);

        String serve = String.join(
                "\n",
                "import socket, sys",
                "s = socket.create_server((sys.argv[1], int(sys.argv[2])))",
                "c, _ = s.accept()",
                "got = b''",
                "while len(got) < 20: got += c.recv(20 - len(got))",
                "c.sendall(b'x' * 20000)",
                "c.shutdown(socket.SHUT_WR)",
                "while c.recv(4096): pass",
                "c.close()");
        String fetch = String.join(
                "\n",
                "import socket, sys, time",
                "for _ in range(50):",
                "    try:",
                "        c = socket.create_connection((sys.argv[1], int(sys.argv[2])), 5); break",
                "    except OSError: time.sleep(0.1)",
                "c.sendall(b'twenty bytes, please')",
                "got = b''",
                "while True:",
                "    b = c.recv(65536)",
                "    if not b: break",
                "    got += b",
                "assert got == b'x' * 20000, len(got)",
                "c.close()");
        Process podServer = new ProcessBuilder(
                        "ip", "netns", "exec", namespaces.get(2), "python3", "-c", serve, POD2, "8080")
                .start();
        Process nodeServer =
                new ProcessBuilder("ip", "netns", "exec", node, "python3", "-c", serve, NODE, "8081").start();
        ok("ip", "netns", "exec", namespaces.get(1), "python3", "-c", fetch, POD2, "8080");
        ok("ip", "netns", "exec", namespaces.get(1), "python3", "-c", fetch, NODE, "8081");
        assertThat(podServer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(nodeServer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(1000);

        agent.toHandle().destroy(); // SIGTERM: tcpdump stops, the agent publishes what it wrote, then spools
        assertThat(agent.waitFor(60, TimeUnit.SECONDS))
                .as("agent exits after SIGTERM")
                .isTrue();
        output.join();
        String all = output.all();
        assertThat(agent.exitValue()).as(all).isEqualTo(4); // records remain in the spool: no broker

        Map<Integer, String> kernel = ipLink(node);
        String vpod1 = "vpod1";
        String vpod2 = "vpod2";
        assertThat(kernel).containsValues("br0", vpod1, vpod2);
        // payload bytes per interface and connection (client port > server port), each direction
        Map<String, Long> bytes = new TreeMap<>();
        try (DiskSpool s = DiskSpool.open(spool, 256L << 20, PacketRecordWeight.INSTANCE)) {
            for (SpoolRecord r : s.peek(Integer.MAX_VALUE, Integer.MAX_VALUE).records()) {
                PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
                String iface = batch.getVantage().getInterfaceName();
                for (PacketEvent e : PacketBatches.toEvents(batch)) {
                    boolean fromServer = e.getSrcPort() == 8080 || e.getSrcPort() == 8081;
                    int server = fromServer ? e.getSrcPort() : e.getDstPort();
                    bytes.merge(
                            iface + " " + server + (fromServer ? " s2c" : " c2s"),
                            (long) e.getPayloadLength(),
                            Long::sum);
                }
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        // pod1 -> pod2 is bridged: pod1's veth and pod2's; pod1 -> the node's bridge address: pod1's veth and br0
        for (String at : List.of(vpod1 + " 8080", vpod2 + " 8080", vpod1 + " 8081", "br0 8081")) {
            expected.put(at + " c2s", 20L);
            expected.put(at + " s2c", 20_000L);
        }
        assertThat(bytes).as(all).isEqualTo(expected);
    }

    /** index -> name of the namespace's interfaces, as {@code ip -o link} prints them. */
    private static Map<Integer, String> ipLink(String ns) throws Exception {
        Process ip = new ProcessBuilder("ip", "-n", ns, "-o", "link")
                .redirectErrorStream(true)
                .start();
        String out = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ip.waitFor()).as(out).isZero();
        Map<Integer, String> links = new TreeMap<>();
        for (String line : out.lines().toList()) {
            String[] f = line.split(": ", 3);
            links.put(Integer.parseInt(f[0]), f[1].replaceAll("@.*", ""));
        }
        return links;
    }

    private static void ok(String... cmd) throws Exception {
        assertThat(AgentOutput.sh(cmd)).as(String.join(" ", cmd)).isZero();
    }
}
