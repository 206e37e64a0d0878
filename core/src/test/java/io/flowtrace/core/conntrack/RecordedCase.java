package io.flowtrace.core.conntrack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One case recorded by scripts/capture-conntrack.sh: the raw messages ([u32 LE length][bytes]), the
 * python reference decoding (CASE.attrs.txt, key=value per message) and the conntrack -E text.
 */
record RecordedCase(String name, List<byte[]> messages, List<Map<String, String>> reference, Path text) {

    static final Path DIR = Path.of("..", "testdata", "conntrack");
    static final List<String> TEXT_CASES = List.of(
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

    static List<RecordedCase> all() {
        List<RecordedCase> out = new ArrayList<>();
        for (String n : TEXT_CASES) {
            out.add(load(n));
        }
        out.add(load("burst"));
        return out;
    }

    static RecordedCase load(String name) {
        try {
            byte[] bin = Files.readAllBytes(DIR.resolve(name + ".nl.bin"));
            ByteBuffer bb = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
            List<byte[]> msgs = new ArrayList<>();
            while (bb.remaining() >= 4) {
                byte[] m = new byte[bb.getInt()];
                bb.get(m);
                msgs.add(m);
            }
            List<Map<String, String>> ref = new ArrayList<>();
            for (String line : Files.readAllLines(DIR.resolve(name + ".attrs.txt"), StandardCharsets.UTF_8)) {
                Map<String, String> kv = new LinkedHashMap<>();
                for (String tok : line.split(" ")) {
                    int eq = tok.indexOf('=');
                    kv.put(tok.substring(0, eq), tok.substring(eq + 1));
                }
                ref.add(kv);
            }
            Path text = DIR.resolve(name + ".events.txt");
            return new RecordedCase(name, msgs, ref, Files.exists(text) ? text : null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The features the capture script set for the case (sysctls acct and timestamp). */
    KernelFeatures features() {
        boolean on = !name.endsWith("nofeat");
        return KernelFeatures.stock().withAcct(on).withTimestamp(on);
    }
}
