package io.flowtrace.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The catalogue against the report walk and against docs/metrics.md. */
class FlowFieldsTest {

    @Test
    void theReportWritesExactlyTheCatalogueFieldsInCatalogueOrder() throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/cubic-loss.sender.pcap.gz"));
        List<String> catalogue = new ArrayList<>();
        FlowFields.FLOW.forEach(f -> catalogue.add(f.path()));
        for (String side : List.of("c2s.", "s2c.")) {
            FlowFields.DIRECTION.forEach(f -> catalogue.add(side + f.path()));
        }

        assertThat(run.flows).isNotEmpty();
        for (Map<String, Object> flow : run.flows.values()) {
            assertThat(List.copyOf(flow.keySet())).containsExactlyElementsOf(catalogue);
        }
    }

    /**
     * The fields added through the catalogue after its first release, with their columns: removing an
     * entry (or its column) must fail here, not only in the outputs that happen to be tested.
     */
    @Test
    void theCatalogueDeclaresTheAdvertisedWindowPerDirection() {
        assertThat(columnOf("c2s.window.min_bytes")).containsExactly("c2s_window_min_bytes", "s2c_window_min_bytes");
        assertThat(columnOf("s2c.window.max_bytes")).containsExactly("c2s_window_max_bytes", "s2c_window_max_bytes");
        assertThat(FlowFields.byJsonPath("s2c.window.scale")).isNotNull();
        assertThat(FlowFields.byJsonPath("s2c.window.scale").nullable()).isTrue();
    }

    @Test
    void theCatalogueDeclaresTheSmallRoundsByLimitPerDirection() {
        assertThat(columnOf("c2s.rwnd_limited_rounds"))
                .containsExactly("c2s_rwnd_limited_rounds", "s2c_rwnd_limited_rounds");
        assertThat(columnOf("s2c.app_limited_rounds"))
                .containsExactly("c2s_app_limited_rounds", "s2c_app_limited_rounds");
    }

    @Test
    void theCatalogueDeclaresResetsPerDirection() {
        assertThat(columnOf("c2s.resets")).containsExactly("c2s_resets", "s2c_resets");
    }

    private static List<String> columnOf(String path) {
        FlowField f = FlowFields.byJsonPath(path);
        assertThat(f).as("%s in the catalogue", path).isNotNull();
        assertThat(f.nullable())
                .as("%s: added after the first release, so nullable", path)
                .isTrue();
        assertThat(f.inAvro()).as("%s in the Avro contract", path).isTrue();
        assertThat(f.column()).as("%s has a flow_summary column", path).isNotNull();
        return f.column().names();
    }

    /**
     * {@code analyze -l} prints every direction field as a row under its entry's label (the rows are
     * keyed by nothing else: two fields with one label would read as one); the flow fields are laid
     * out in the report's header sentences and carry none.
     */
    @Test
    void everyDirectionFieldHasALabelOfItsOwn() {
        Set<String> labels = new HashSet<>();
        for (FlowField f : FlowFields.DIRECTION) {
            assertThat(f.label())
                    .as("%s: the label analyze -l prints", f.path())
                    .isNotBlank();
            assertThat(labels.add(f.label().strip()))
                    .as("%s: label '%s' also names another field", f.path(), f.label())
                    .isTrue();
        }
        for (FlowField f : FlowFields.FLOW) {
            assertThat(f.label()).as(f.path()).isNull();
        }
    }

    @Test
    void everyFieldHasADefinitionAUnitAndAValidWindowStatistic() {
        for (FlowField f : FlowFields.all()) {
            assertThat(f.definition()).as(f.path()).isNotBlank();
            assertThat(f.unit()).as(f.path()).isNotNull();
            assertThat(f.window().stat() == null)
                    .as(f.path())
                    .isEqualTo(f.window().aggregate() == FlowField.Aggregate.NONE);
            assertThat(FlowFields.byJsonPath(f.jsonPaths().get(0))).isSameAs(f);
        }
    }

    @Test
    void objectsOfTheReportAreContiguousSoTheWalkOpensEachOnce() {
        for (List<FlowField> scope : List.of(FlowFields.FLOW, FlowFields.DIRECTION)) {
            Set<String> closed = new HashSet<>();
            String current = "";
            for (FlowField f : scope) {
                String parent =
                        f.path().contains(".") ? f.path().substring(0, f.path().lastIndexOf('.')) : "";
                if (!parent.equals(current)) {
                    closed.add(current);
                    if (!parent.isEmpty()) { // the top level is not an object
                        assertThat(closed)
                                .as("object %s opened again at %s", parent, f.path())
                                .doesNotContain(parent);
                    }
                    current = parent;
                }
            }
        }
    }

    /** The TCP sections of docs/metrics.md: from "## Identity" up to "## Checked against independent truth". */
    private static Set<String> documentedNames() throws IOException {
        String doc = Files.readString(TestData.root().resolveSibling("docs").resolve("metrics.md"));
        String tcp = doc.substring(doc.indexOf("## Identity"), doc.indexOf("## Checked against independent truth"));
        Set<String> names = new LinkedHashSet<>();
        Pattern code = Pattern.compile("`([a-z0-9_.*]+)`");
        for (String line : tcp.lines().toList()) {
            if (!line.startsWith("| `")) {
                continue;
            }
            Matcher m = code.matcher(line.substring(1, line.indexOf(" |", 2)));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** A documented name covers a path when it is the path, a tail of it on a dot, or an {@code object.*} over it. */
    private static boolean covers(String documented, String path) {
        if (documented.endsWith(".*")) {
            String object = documented.substring(0, documented.length() - 1);
            return path.startsWith(object) || path.contains("." + object);
        }
        return path.equals(documented) || path.endsWith("." + documented);
    }

    @Test
    void docsMetricsDefinesEveryCatalogueField() throws IOException {
        Set<String> documented = documentedNames();
        for (FlowField f : FlowFields.all()) {
            assertThat(documented.stream().anyMatch(d -> covers(d, f.path())))
                    .as("%s is in the catalogue but has no row in docs/metrics.md", f.path())
                    .isTrue();
        }
    }

    @Test
    void docsMetricsDefinesNoFieldTheCatalogueLacks() throws IOException {
        for (String d : documentedNames()) {
            assertThat(FlowFields.all().stream().anyMatch(f -> covers(d, f.path())))
                    .as("docs/metrics.md defines %s, which the catalogue (core FlowFields) lacks", d)
                    .isTrue();
        }
    }
}
