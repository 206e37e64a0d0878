package io.flowtrace.jobs.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The committed dashboards (deploy/grafana/dashboards/*.json) as the panels' SQL and the variables. */
final class GrafanaDashboards {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GrafanaDashboards() {}

    /** One SQL query of a panel (a panel has one or more targets). */
    record PanelQuery(String dashboard, int panelId, String title, String refId, String rawSql, Duration minInterval) {
        @Override
        public String toString() {
            return dashboard + " #" + panelId + " " + refId + " \"" + title + "\"";
        }
    }

    /** A template variable: a query variable (SQL) or a custom one (fixed options). */
    record Variable(String name, String type, String query, boolean multiOrAll, List<String> customValues) {}

    record Dashboard(
            Path file, String uid, String title, JsonNode root, List<Variable> variables, List<PanelQuery> queries) {}

    static Path directory() {
        return RepoFiles.path("deploy/grafana/dashboards");
    }

    static List<Dashboard> all() {
        try (Stream<Path> files = Files.list(directory())) {
            return files.filter(f -> f.toString().endsWith(".json"))
                    .sorted()
                    .map(GrafanaDashboards::read)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Dashboard read(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + file, e);
        }
        String name = file.getFileName().toString();
        List<PanelQuery> queries = new ArrayList<>();
        collectPanels(name, root.path("panels"), queries);
        List<Variable> variables = new ArrayList<>();
        for (JsonNode v : root.path("templating").path("list")) {
            String type = v.path("type").asText();
            List<String> custom = new ArrayList<>();
            for (JsonNode o : v.path("options")) {
                custom.add(o.path("value").asText());
            }
            variables.add(new Variable(
                    v.path("name").asText(),
                    type,
                    v.path("query").asText(),
                    v.path("multi").asBoolean() || v.path("includeAll").asBoolean(),
                    custom));
        }
        return new Dashboard(file, root.path("uid").asText(), root.path("title").asText(), root, variables, queries);
    }

    /** Panels, and the panels of rows (a collapsed row keeps its panels inside it). */
    private static void collectPanels(String dashboard, JsonNode panels, List<PanelQuery> out) {
        for (JsonNode p : panels) {
            collectPanels(dashboard, p.path("panels"), out);
            Duration min = p.hasNonNull("interval")
                    ? GrafanaSql.parseInterval(p.get("interval").asText())
                    : null;
            for (JsonNode t : p.path("targets")) {
                out.add(new PanelQuery(
                        dashboard,
                        p.path("id").asInt(),
                        p.path("title").asText(),
                        t.path("refId").asText(),
                        t.path("rawSql").asText(null),
                        min));
            }
        }
    }
}
