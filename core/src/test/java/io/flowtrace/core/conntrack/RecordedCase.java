package io.flowtrace.core.conntrack;

import io.flowtrace.core.testing.ConntrackRecordings;
import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    static final Path DIR = TestData.file("conntrack");

    static List<RecordedCase> all() {
        List<RecordedCase> out = new ArrayList<>();
        for (String n : ConntrackRecordings.CASES) {
            out.add(load(n));
        }
        return out;
    }

    static RecordedCase load(String name) {
        try {
            List<byte[]> msgs = ConntrackRecordings.messages(name);
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
        return ConntrackRecordings.features(name);
    }
}
