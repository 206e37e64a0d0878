package io.flowtrace.jobs.deploy;

import io.flowtrace.testkit.RequiredTool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What {@code kubectl apply -k deploy/k8s} would apply. With kubectl on the PATH, its own kustomize
 * renders it; without, {@link #renderHere} does the part of kustomize that deploy/k8s/kustomization.yaml
 * uses (resources in order, replacements from a field into a field, whole or one delimited part), and
 * {@code DeploySchemasTest} checks both give the same objects where kubectl exists.
 */
final class Kustomize {
    private Kustomize() {}

    static Path kubectl() {
        return RequiredTool.find("kubectl").orElse(null);
    }

    /** kubectl kustomize's output, or null without kubectl. */
    static List<Map<String, Object>> renderWithKubectl(Path dir) {
        Path kubectl = kubectl();
        if (kubectl == null) {
            return null;
        }
        try {
            Path out = Files.createTempFile("kustomize", ".yaml");
            try {
                Process p = new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString())
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("kubectl kustomize " + dir + " did not finish in 120 s");
                }
                if (p.exitValue() != 0) {
                    throw new AssertionError("kubectl kustomize " + dir + " exited with " + p.exitValue());
                }
                return Yaml.documents(out);
            } finally {
                Files.delete(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** kubectl's rendering where kubectl exists, else this class's. */
    static List<Map<String, Object>> render(Path dir) {
        List<Map<String, Object>> kubectl = renderWithKubectl(dir);
        return kubectl != null ? kubectl : renderHere(dir);
    }

    static List<Map<String, Object>> renderHere(Path dir) {
        Map<String, Object> k =
                Yaml.documents(dir.resolve("kustomization.yaml")).get(0);
        for (String key : k.keySet()) {
            if (!List.of("apiVersion", "kind", "resources", "replacements", "patches")
                    .contains(key)) {
                throw new AssertionError("kustomization.yaml uses " + key + ", which Kustomize.renderHere does not do");
            }
        }
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object resource : Yaml.list(k.get("resources"), "resources")) {
            Path r = dir.resolve(resource.toString()).normalize();
            objects.addAll(Files.isDirectory(r) ? renderHere(r) : Yaml.documents(r));
        }
        if (k.get("patches") != null) {
            for (Object p : Yaml.list(k.get("patches"), "patches")) {
                patch(objects, Yaml.map(p, "patch"));
            }
        }
        for (Object r : Yaml.list(k.get("replacements") == null ? List.of() : k.get("replacements"), "replacements")) {
            Map<String, Object> replacement = Yaml.map(r, "replacement");
            Map<String, Object> source = Yaml.map(replacement.get("source"), "source");
            Object value = get(select(objects, source), source.get("fieldPath").toString());
            for (Object t : Yaml.list(replacement.get("targets"), "targets")) {
                Map<String, Object> target = Yaml.map(t, "target");
                Map<String, Object> object = select(objects, Yaml.map(target.get("select"), "select"));
                Map<String, Object> options =
                        target.get("options") == null ? Map.of() : Yaml.map(target.get("options"), "options");
                for (Object fieldPath : Yaml.list(target.get("fieldPaths"), "fieldPaths")) {
                    set(object, fieldPath.toString(), value, options);
                }
            }
        }
        return objects;
    }

    /** A JSON 6902 patch (ops add and replace, JSON pointers without escapes) on every object of its target. */
    private static void patch(List<Map<String, Object>> objects, Map<String, Object> patch) {
        Map<String, Object> target = Yaml.map(patch.get("target"), "target");
        List<Map<String, Object>> selected = objects.stream()
                .filter(o -> target.get("kind").equals(o.get("kind")))
                .filter(o -> !target.containsKey("name") || target.get("name").equals(Yaml.at(o, "metadata.name")))
                .toList();
        if (selected.isEmpty()) {
            throw new AssertionError("patch target " + target + " matches no object");
        }
        List<Object> ops = Yaml.list(
                new org.snakeyaml.engine.v2.api.Load(org.snakeyaml.engine.v2.api.LoadSettings.builder()
                                .build())
                        .loadFromString(patch.get("patch").toString()),
                "patch operations");
        for (Map<String, Object> object : selected) {
            for (Object o : ops) {
                Map<String, Object> op = Yaml.map(o, "operation");
                String kind = op.get("op").toString();
                if (!kind.equals("add") && !kind.equals("replace")) {
                    throw new AssertionError("op " + kind + ", which Kustomize.renderHere does not do");
                }
                String path = op.get("path").toString();
                if (path.contains("~")) {
                    throw new AssertionError(
                            "escaped JSON pointer " + path + ", which Kustomize.renderHere does not do");
                }
                setPointer(object, List.of(path.substring(1).split("/")), op.get("value"), kind.equals("replace"));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void setPointer(Map<String, Object> object, List<String> parts, Object value, boolean mustExist) {
        Object node = object;
        for (String part : parts.subList(0, parts.size() - 1)) {
            node = node instanceof List<?> l ? l.get(Integer.parseInt(part)) : ((Map<String, Object>) node).get(part);
            if (node == null) {
                throw new AssertionError("no field " + parts);
            }
        }
        String last = parts.get(parts.size() - 1);
        if (node instanceof List<?> l) {
            ((List<Object>) l).set(Integer.parseInt(last), value);
        } else {
            Map<String, Object> map = (Map<String, Object>) node;
            if (mustExist && !map.containsKey(last)) {
                throw new AssertionError("replace of a missing field " + parts);
            }
            map.put(last, value);
        }
    }

    private static Map<String, Object> select(List<Map<String, Object>> objects, Map<String, Object> selector) {
        List<Map<String, Object>> found = objects.stream()
                .filter(o -> selector.get("kind").equals(o.get("kind")))
                .filter(o ->
                        !selector.containsKey("name") || selector.get("name").equals(Yaml.at(o, "metadata.name")))
                .toList();
        if (found.size() != 1) {
            throw new AssertionError("replacement selector " + selector + " matches " + found.size() + " objects");
        }
        return found.get(0);
    }

    private static Object get(Object node, String path) {
        for (String part : path.split("\\.")) {
            node = node instanceof List<?> l
                    ? l.get(Integer.parseInt(part))
                    : Yaml.map(node, path).get(part);
            if (node == null) {
                throw new AssertionError("no field " + path);
            }
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static void set(Map<String, Object> object, String path, Object value, Map<String, Object> options) {
        int dot = path.lastIndexOf('.');
        Object parent = get(object, path.substring(0, dot));
        String last = path.substring(dot + 1);
        Object old = parent instanceof List<?> l
                ? l.get(Integer.parseInt(last))
                : Yaml.map(parent, path).get(last);
        Object replaced = value;
        if (options.containsKey("delimiter")) {
            String delimiter = options.get("delimiter").toString();
            String[] parts = old.toString().split(java.util.regex.Pattern.quote(delimiter), -1);
            parts[((Number) options.get("index")).intValue()] = value.toString();
            replaced = String.join(delimiter, parts);
        }
        if (parent instanceof List<?> l) {
            ((List<Object>) l).set(Integer.parseInt(last), replaced);
        } else {
            Yaml.map(parent, path).put(last, replaced);
        }
    }
}
