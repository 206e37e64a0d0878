package io.flowtrace.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A reader of the Prometheus text exposition format, written from its specification for the tests. */
public final class PrometheusText {
    /** name{labels} value: the sample line of the Prometheus text format. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{(.*)} (-?\\d+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private PrometheusText() {
    }

    /** Sample lines as "name{k=v,...}" (label values unescaped, labels in order) → value; comments skipped. */
    public static Map<String, Long> parse(String body) {
        Map<String, Long> out = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            String name;
            String labels = "";
            long value;
            Matcher s = SAMPLE.matcher(line);
            if (s.matches()) {
                name = s.group(1);
                Matcher l = LABEL.matcher(s.group(2));
                StringBuilder b = new StringBuilder();
                while (l.find()) {
                    b.append(b.length() > 0 ? "," : "").append(l.group(1)).append('=').append(unescape(l.group(2)));
                }
                labels = b.toString();
                value = Long.parseLong(s.group(3));
            } else {
                String[] parts = line.split(" ");
                assertThat(parts).as("sample line %s", line).hasSize(2);
                name = parts[0];
                value = Long.parseLong(parts[1]);
            }
            out.put(name + "{" + labels + "}", value);
        }
        return out;
    }

    private static String unescape(String v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch == '\\' && i + 1 < v.length()) {
                char next = v.charAt(++i);
                b.append(next == 'n' ? '\n' : next);
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
