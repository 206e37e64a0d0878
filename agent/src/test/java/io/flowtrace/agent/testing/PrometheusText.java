package io.flowtrace.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Reads the Prometheus text exposition format for the tests with the official Prometheus Python
 * client's parser ({@code prometheus_client.parser}, Debian python3-prometheus-client), not a parser
 * of our own. Samples come back as "name{k=v,...}" → value, label values unescaped; lookups accept the
 * labels in any order (the client writes them sorted by name).
 */
public final class PrometheusText {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PARSER = String.join(
            "\n",
            "import json, sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "out = []",
            "for family in text_string_to_metric_families(sys.stdin.read()):",
            "    for s in family.samples:",
            "        out.append([s.name, s.labels, s.value])",
            "print(json.dumps(out))");

    /** Debian's interpreter, where apt installs python3-prometheus-client (a pyenv python3 earlier on PATH lacks it). */
    private static final String PYTHON =
            java.nio.file.Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";

    private PrometheusText() {}

    /** True when python3 with prometheus_client is installed (.ci/run installs it). */
    public static boolean parserAvailable() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import prometheus_client.parser")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Every sample of {@code body}; comments and TYPE/HELP lines are the parser's business. */
    public static Map<String, Long> parse(String body) {
        List<Object[]> samples = pythonSamples(body);
        Map<String, Long> out = new SampleMap();
        for (Object[] s : samples) {
            double v = (Double) s[2];
            assertThat(v).as("sample %s is a whole number", s[0]).isEqualTo(Math.rint(v));
            out.put(key((String) s[0], castLabels(s[1])), (long) v);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> castLabels(Object o) {
        return (Map<String, String>) o;
    }

    private static List<Object[]> pythonSamples(String body) {
        try {
            Path in = Files.createTempFile("prometheus", ".txt");
            try {
                Files.writeString(in, body, StandardCharsets.UTF_8);
                Process p = new ProcessBuilder(PYTHON, "-c", PARSER)
                        .redirectInput(in.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                byte[] stdout = p.getInputStream().readAllBytes();
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue())
                        .as("prometheus_client parsed the exposition:%n%s", body)
                        .isZero();
                List<Object[]> out = new ArrayList<>();
                for (JsonNode s : JSON.readTree(stdout)) {
                    Map<String, String> labels = new HashMap<>();
                    s.get(1)
                            .fields()
                            .forEachRemaining(
                                    e -> labels.put(e.getKey(), e.getValue().asText()));
                    out.add(new Object[] {s.get(0).asText(), labels, s.get(2).asDouble()});
                }
                return out;
            } finally {
                Files.deleteIfExists(in);
            }
        } catch (IOException e) {
            throw new AssertionError(
                    "python3 with prometheus_client is needed to read /metrics (apt-get install "
                            + "python3-prometheus-client)",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String key(String name, Map<String, String> labels) {
        StringBuilder b = new StringBuilder(name).append('{');
        new TreeMap<>(labels)
                .forEach((k, v) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ",")
                        .append(k)
                        .append('=')
                        .append(v));
        return b.append('}').toString();
    }

    /** "name{b=2,a=1}" → "name{a=1,b=2}": the form keys are stored in. Label values must not contain ',' or '='. */
    static String canonical(String key) {
        int open = key.indexOf('{');
        if (open < 0 || !key.endsWith("}")) {
            return key;
        }
        String inside = key.substring(open + 1, key.length() - 1);
        Map<String, String> labels = new TreeMap<>();
        if (!inside.isEmpty()) {
            for (String pair : inside.split(",(?=[a-zA-Z_][a-zA-Z0-9_]*=)")) {
                int eq = pair.indexOf('=');
                labels.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return key(key.substring(0, open), labels);
    }

    /** Looks keys up with their labels in any order. */
    private static final class SampleMap extends HashMap<String, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long get(Object key) {
            return super.get(key instanceof String s ? canonical(s) : key);
        }

        @Override
        public boolean containsKey(Object key) {
            return super.containsKey(key instanceof String s ? canonical(s) : key);
        }

        @Override
        public Long getOrDefault(Object key, Long defaultValue) {
            return super.getOrDefault(key instanceof String s ? canonical(s) : key, defaultValue);
        }
    }
}
