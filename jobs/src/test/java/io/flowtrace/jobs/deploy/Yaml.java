package io.flowtrace.jobs.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** YAML documents as plain maps and lists (snakeyaml-engine, YAML 1.2), with small typed accessors. */
final class Yaml {
    private Yaml() {}

    /** Every document of a file (several when separated by ---), skipping empty ones. */
    static List<Map<String, Object>> documents(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Load load = new Load(LoadSettings.builder().setLabel(file.toString()).build());
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : load.loadAllFromString(text)) {
            if (doc != null) {
                docs.add(map(doc, file + " document"));
            }
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String what) {
        if (!(node instanceof Map)) {
            throw new AssertionError(what + " is not a mapping: " + node);
        }
        return (Map<String, Object>) node;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object node, String what) {
        if (node == null) {
            return List.of();
        }
        if (!(node instanceof List)) {
            throw new AssertionError(what + " is not a list: " + node);
        }
        return (List<Object>) node;
    }

    /** The value at a dotted path of mapping keys ("spec.template.spec"), or null. Keys with dots: use get(). */
    static Object at(Map<String, Object> root, String path) {
        Object node = root;
        for (String key : path.split("\\.")) {
            if (!(node instanceof Map)) {
                return null;
            }
            node = ((Map<?, ?>) node).get(key);
        }
        return node;
    }

    static String string(Map<String, Object> root, String path) {
        Object v = at(root, path);
        return v == null ? null : v.toString();
    }

    /** Visits every mapping in the tree (depth first), e.g. to find every securityContext. */
    static void walk(Object node, Consumer<Map<String, Object>> visitor) {
        if (node instanceof Map<?, ?> m) {
            visitor.accept(map(m, "node"));
            for (Object v : m.values()) {
                walk(v, visitor);
            }
        } else if (node instanceof List<?> l) {
            for (Object v : l) {
                walk(v, visitor);
            }
        }
    }
}
