package io.flowtrace.core.testing;

import io.flowtrace.core.conntrack.KernelFeatures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * The conntrack cases recorded by scripts/capture-conntrack.sh under testdata/conntrack (see its
 * README.md): which there are, their raw ctnetlink messages and the kernel features they were
 * recorded with. One list for core's and the jobs' tests.
 */
public final class ConntrackRecordings {
    /** The cases with a conntrack -E text recording (CASE.events.txt) beside the raw messages. */
    public static final List<String> TEXT_CASES = List.of(
            "v4_plain",
            "v6_plain",
            "v4_mark",
            "v6_mark",
            "v4_zone",
            "v6_zone",
            "v4_zone_mark",
            "v4_nat",
            "v6_nat",
            "v4_xml",
            "v4_nofeat",
            "v6_nofeat");

    /** Every case: {@link #TEXT_CASES}, then the burst (raw messages only, no text recording). */
    public static final List<String> CASES;

    static {
        List<String> all = new ArrayList<>(TEXT_CASES);
        all.add("burst");
        CASES = List.copyOf(all);
    }

    private ConntrackRecordings() {}

    /**
     * The raw messages of testdata/conntrack/NAME.nl.bin ([u32 LE length][message]); each one's
     * length is its length prefix, i.e. the real nlmsg size. NAME may lead elsewhere under
     * testdata ({@code ../join/conntrack}).
     */
    public static List<byte[]> messages(String name) {
        try {
            byte[] bin = Files.readAllBytes(TestData.file("conntrack/" + name + ".nl.bin"));
            ByteBuffer bb = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
            List<byte[]> out = new ArrayList<>();
            while (bb.remaining() >= 4) {
                byte[] m = new byte[bb.getInt()];
                bb.get(m);
                out.add(m);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The features the capture script set for the case (sysctls acct and timestamp; off for the nofeat cases). */
    public static KernelFeatures features(String name) {
        boolean on = !name.endsWith("nofeat");
        return KernelFeatures.stock().withAcct(on).withTimestamp(on);
    }
}
