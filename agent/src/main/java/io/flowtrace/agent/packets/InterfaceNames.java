package io.flowtrace.agent.packets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The vantage interface name of each capture interface id ({@code CaptureRecord.interfaceId}): a
 * pcapng interface id, or for a LINUX_SLL2 frame the kernel's interface index (core's readers; the
 * agent captures {@code --iface any} with {@code -y LINUX_SLL2}, {@link TcpdumpSupervisor}), so a packet
 * that crosses two interfaces is a packet of two vantages, never a duplicate within one flow.
 *
 * <ul>
 *   <li>no name given (a file or stdin): {@code if<id>}, the vantage {@code flowtrace analyze} reports;
 *   <li>id 0 (classic pcap other than SLL2, the first pcapng interface): the name given, as before;
 *   <li>another id, live capture: the interface's own name in the agent's network namespace
 *       ({@code /sys/class/net/NAME/ifindex}), e.g. a pod's veth or the bridge of {@code any};
 *   <li>otherwise {@code NAME:if<id>} (an index no longer known, or a file with {@code --interface-name}).
 * </ul>
 */
public final class InterfaceNames {
    private static final Path SYS_CLASS_NET = Path.of("/sys/class/net");

    private final String name;
    /** Where the live interfaces are listed, or null when the capture is not live. */
    private final Path sysClassNet;

    private InterfaceNames(String name, Path sysClassNet) {
        this.name = name;
        this.sysClassNet = sysClassNet;
    }

    /** A file or stdin: {@code name} (or {@code if<id>} when null) for its interfaces. */
    public static InterfaceNames of(String name) {
        return new InterfaceNames(name, null);
    }

    /** A live capture on {@code iface}: the interfaces of {@code any} by their own names. */
    public static InterfaceNames live(String iface) {
        return new InterfaceNames(iface, SYS_CLASS_NET);
    }

    /** The name of interface {@code id}; asked once per id by {@link CapturePublisher}. */
    public String name(int id) {
        if (name == null) {
            return "if" + id;
        }
        if (id == 0) {
            return name;
        }
        String own = sysClassNet != null ? byIndex(sysClassNet, id) : null;
        return own != null ? own : name + ":if" + id;
    }

    /**
     * The interface whose {@code ifindex} is {@code index} in the network namespace {@code sysClassNet}
     * shows, or null. Hand-written: the JDK's {@code java.net.NetworkInterface.getByIndex} lists only interfaces
     * that hold an address (SIOCGIFCONF, /proc/net/if_inet6 on Linux), and a bridge port has none.
     */
    static String byIndex(Path sysClassNet, int index) {
        try (DirectoryStream<Path> interfaces = Files.newDirectoryStream(sysClassNet)) {
            for (Path dir : interfaces) {
                try {
                    String value = Files.readString(dir.resolve("ifindex"), StandardCharsets.US_ASCII)
                            .trim();
                    if (Integer.parseInt(value) == index) {
                        return dir.getFileName().toString();
                    }
                } catch (IOException | NumberFormatException e) {
                    // gone while listed, or not an interface: the next one
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
