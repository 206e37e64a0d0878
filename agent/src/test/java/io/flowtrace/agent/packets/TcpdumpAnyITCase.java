package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.LinkType;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The real tcpdump with the agent's command line for {@code --iface any}: it writes LINUX_SLL2, whose
 * interface index the reader makes the interface id, and the live names resolve that index to the
 * interface's own name. The truth for the names is the kernel's list by netlink ({@code ip -o link}), not
 * the sysfs files {@link InterfaceNames} reads. Needs tcpdump, ip and the right to capture.
 */
class TcpdumpAnyITCase {

    @Test
    void liveNamesAreTheKernelsNamesOfEachInterfaceIndex() throws Exception {
        Map<Integer, String> kernel = ipLink();
        assertThat(kernel).containsEntry(1, "lo"); // every network namespace has lo at index 1
        InterfaceNames live = InterfaceNames.live("any");
        kernel.forEach((index, name) ->
                assertThat(live.name(index)).as("index %d", index).isEqualTo(name));
        int unused = kernel.keySet().stream().mapToInt(i -> i).max().orElse(0) + 1000;
        assertThat(live.name(unused)).isEqualTo("any:if" + unused);
        assertThat(live.name(0)).isEqualTo("any");
    }

    @Test
    void tcpdumpOnAnyWritesTheInterfaceIndexOfEachPacket() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/tcpdump")) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "tcpdump is not installed");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            TcpdumpSupervisor t = new TcpdumpSupervisor(
                    "tcpdump", "any", 128, "tcp port " + server.getLocalPort(), new AgentMetrics(), 0);
            assertThat(t.command()).containsSubsequence("-y", "LINUX_SLL2");
            Process p = new ProcessBuilder(t.command()).start();
            try (InputStream out = p.getInputStream()) {
                CaptureReader reader;
                try {
                    reader = CaptureReader.open(out); // the file header: tcpdump is capturing
                } catch (Exception e) {
                    String err = new String(p.getErrorStream().readNBytes(4096), StandardCharsets.UTF_8);
                    assumeTrue(!err.contains("Operation not permitted"), "no capture permission: " + err);
                    throw new AssertionError("tcpdump wrote no capture: " + err, e);
                }
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                        Socket accepted = server.accept()) {
                    client.getOutputStream().write(1);
                    assertThat(accepted.getInputStream().read()).isEqualTo(1);
                }
                CaptureRecord rec = new CaptureRecord();
                DecodedPacket packet = new DecodedPacket();
                assertThat(reader.next(rec)).isTrue();
                assertThat(rec.linkType).isEqualTo(LinkType.LINUX_SLL2);
                assertThat(new PacketDecoder().decode(rec, packet)).isEqualTo(DecodeStatus.TCP);
                assertThat(rec.interfaceId).as("lo's index").isEqualTo(1);
                assertThat(InterfaceNames.live("any").name(rec.interfaceId)).isEqualTo("lo");
            } finally {
                p.destroy();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** index -> name of this network namespace's interfaces, as {@code ip -o link} prints them. */
    private static Map<Integer, String> ipLink() throws Exception {
        Process ip;
        try {
            ip = new ProcessBuilder("ip", "-o", "link")
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            assumeTrue(false, "ip is not installed: " + e.getMessage());
            throw e;
        }
        String out = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ip.waitFor()).as(out).isZero();
        Map<Integer, String> links = new TreeMap<>();
        // "2: eth0@if9: <BROADCAST,...": the name ends at '@' (a veth's peer) or ':'
        Matcher m = Pattern.compile("(?m)^(\\d+): ([^:@\\s]+)[@:]").matcher(out);
        while (m.find()) {
            links.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        return links;
    }
}
