package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.testkit.RequiredTool;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rendered deploy/k8s objects against the CRDs of every operator version we support, and compose
 * against the Compose Specification, the Kubernetes objects against Kubernetes 1.36's OpenAPI
 * definitions, all from deploy/schemas (sources and versions in its README.md).
 */
class DeploySchemasTest {
    /** Strimzi releases whose KafkaTopic CRD we validate against: 0.49 is the first to serve v1, 1.2 the newest. */
    static final List<String> STRIMZI = List.of("strimzi-0.49.1", "strimzi-1.2.0");
    /** Flink Kubernetes Operator releases: 1.13 is the first to know flinkVersion v2_2, 1.15 the newest. */
    static final List<String> FLINK_OPERATOR =
            List.of("flink-kubernetes-operator-1.13.0", "flink-kubernetes-operator-1.15.0");

    private static final Map<String, String> CRD_FILES = Map.of(
            "KafkaTopic", "043-Crd-kafkatopic.yaml",
            "FlinkDeployment", "flinkdeployments.flink.apache.org-v1.yml");

    /** The Strimzi CRDs of the resources shipped in deploy/strimzi (the cluster, its node pools, the users). */
    private static final Map<String, String> STRIMZI_CRD_FILES = Map.of(
            "Kafka", "040-Crd-kafka.yaml",
            "KafkaUser", "044-Crd-kafkauser.yaml",
            "KafkaNodePool", "045-Crd-kafkanodepool.yaml");

    private static List<Map<String, Object>> rendered() {
        return Kustomize.render(RepoFiles.path("deploy/k8s"));
    }

    @Test
    void everyCustomResourceIsServedAndValidUnderEverySupportedOperatorRelease() {
        int checked = 0;
        for (Map<String, Object> object : rendered()) {
            String kind = Yaml.string(object, "kind");
            if (!CRD_FILES.containsKey(kind)) {
                continue;
            }
            List<String> releases = kind.equals("KafkaTopic") ? STRIMZI : FLINK_OPERATOR;
            for (String release : releases) {
                assertServedAndValid(object, release, CRD_FILES.get(kind));
                checked++;
            }
        }
        assertThat(checked).as("objects x releases checked").isEqualTo(8 * STRIMZI.size() + FLINK_OPERATOR.size());
    }

    /**
     * deploy/strimzi (the Kafka cluster examples and the pipeline's users) against the Kafka, KafkaNodePool
     * and KafkaUser CRDs of every supported Strimzi release.
     */
    @Test
    void everyStrimziResourceIsServedAndValidUnderEverySupportedStrimziRelease() throws Exception {
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        try (var files = java.nio.file.Files.list(RepoFiles.path("deploy/strimzi"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (Map<String, Object> object : Yaml.documents(file)) {
                    String kind = Yaml.string(object, "kind");
                    assertThat(STRIMZI_CRD_FILES)
                            .as("%s: a CRD for %s", file, kind)
                            .containsKey(kind);
                    for (String release : STRIMZI) {
                        assertServedAndValid(object, release, STRIMZI_CRD_FILES.get(kind));
                    }
                    kinds.merge(kind, 1, Integer::sum);
                }
            }
        }
        // kafka.yaml and kafka-small.yaml: a node pool and the Kafka each; users.yaml: the job's and the agents'
        assertThat(kinds).containsEntry("Kafka", 2).containsEntry("KafkaNodePool", 2);
        assertThat(kinds.get("KafkaUser")).isGreaterThanOrEqualTo(2);
    }

    /** The Strimzi CRD rejects a KafkaUser ACL operation Kafka does not have (the check is not vacuous). */
    @Test
    void theStrimziUserCheckRejectsAnUnknownAclOperation() {
        Map<String, Object> user = Map.of(
                "apiVersion",
                "kafka.strimzi.io/v1",
                "kind",
                "KafkaUser",
                "metadata",
                Map.of("name", "u"),
                "spec",
                Map.of(
                        "authentication",
                        Map.of("type", "scram-sha-512"),
                        "authorization",
                        Map.of(
                                "type",
                                "simple",
                                "acls",
                                List.of(Map.of(
                                        "resource",
                                        Map.of("type", "topic", "name", "t"),
                                        "operations",
                                        List.of("Publish"))))));
        for (String release : STRIMZI) {
            Path crd = RepoFiles.path("deploy/schemas/" + release + "/" + STRIMZI_CRD_FILES.get("KafkaUser"));
            SchemaValidation.CrdVersion v1 = SchemaValidation.crdVersions(crd).stream()
                    .filter(v -> v.name().equals("v1"))
                    .findFirst()
                    .orElseThrow();
            assertThat(v1.validate(SchemaValidation.toJson(user)))
                    .as(release)
                    .singleElement()
                    .asString()
                    .contains("operations");
        }
    }

    private static void assertServedAndValid(Map<String, Object> object, String release, String crdFile) {
        Path crd = RepoFiles.path("deploy/schemas/" + release + "/" + crdFile);
        String apiVersion = Yaml.string(object, "apiVersion");
        String where = Yaml.string(object, "kind") + "/" + Yaml.string(object, "metadata.name") + " under " + release;
        SchemaValidation.CrdVersion version = SchemaValidation.crdVersions(crd).stream()
                .filter(v -> v.apiVersion().equals(apiVersion))
                .findFirst()
                .orElse(null);
        assertThat(version).as("%s: the CRD defines %s", where, apiVersion).isNotNull();
        assertThat(version.served()).as("%s: %s is served", where, apiVersion).isTrue();
        assertThat(version.validate(SchemaValidation.toJson(object)))
                .as("%s: schema errors", where)
                .isEmpty();
    }

    @Test
    void everyKubernetesObjectValidatesAgainstTheOpenApiOfKubernetes136() {
        SchemaValidation.KubernetesSchema k8s = kubernetes();
        int checked = 0;
        for (Map<String, Object> object : rendered()) {
            String kind = Yaml.string(object, "kind");
            if (CRD_FILES.containsKey(kind)) {
                continue;
            }
            String where = kind + "/" + Yaml.string(object, "metadata.name");
            assertThat(k8s.definition(Yaml.string(object, "apiVersion"), kind))
                    .as("%s has a definition", where)
                    .isNotNull();
            assertThat(k8s.validate(SchemaValidation.toJson(object)))
                    .as("%s: schema errors", where)
                    .isEmpty();
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(13);
    }

    @Test
    void theKubernetesCheckRejectsAnUnknownFieldAndAcceptsANumericPort() {
        SchemaValidation.KubernetesSchema k8s = kubernetes();
        Map<String, Object> probe = Map.of("httpGet", Map.of("path", "/healthz", "port", 9464));
        Map<String, Object> pod = Map.of(
                "containers",
                List.of(Map.of(
                        "name",
                        "c",
                        "image",
                        "i:1",
                        "readinessProbe",
                        probe,
                        "securityContext",
                        Map.of("capabilities", Map.of("added", List.of("NET_RAW"))))));
        Map<String, Object> ds = Map.of(
                "apiVersion",
                "apps/v1",
                "kind",
                "DaemonSet",
                "metadata",
                Map.of("name", "d"),
                "spec",
                Map.of(
                        "selector",
                        Map.of("matchLabels", Map.of("a", "b")),
                        "template",
                        Map.of("metadata", Map.of("labels", Map.of("a", "b")), "spec", pod)));
        assertThat(k8s.validate(SchemaValidation.toJson(ds)))
                .singleElement()
                .asString()
                .contains("added");
    }

    private static SchemaValidation.KubernetesSchema kubernetes() {
        return new SchemaValidation.KubernetesSchema(RepoFiles.path("deploy/schemas/kubernetes-1.36/definitions.json"));
    }

    /** A field the CRD does not declare is an error, as with kubectl's strict field validation. */
    @Test
    void theCrdCheckRejectsAnUnknownFieldAndAWrongType() {
        Path crd = RepoFiles.path("deploy/schemas/strimzi-1.2.0/043-Crd-kafkatopic.yaml");
        SchemaValidation.CrdVersion v1 = SchemaValidation.crdVersions(crd).stream()
                .filter(v -> v.name().equals("v1"))
                .findFirst()
                .orElseThrow();
        Map<String, Object> topic = Map.of(
                "apiVersion",
                "kafka.strimzi.io/v1",
                "kind",
                "KafkaTopic",
                "metadata",
                Map.of("name", "t"),
                "spec",
                Map.of("partitions", 3, "replica", 3));
        assertThat(v1.validate(SchemaValidation.toJson(topic)))
                .singleElement()
                .asString()
                .contains("replica");
        Map<String, Object> wrongType = Map.of(
                "apiVersion",
                "kafka.strimzi.io/v1",
                "kind",
                "KafkaTopic",
                "metadata",
                Map.of("name", "t"),
                "spec",
                Map.of("partitions", "three"));
        assertThat(v1.validate(SchemaValidation.toJson(wrongType)))
                .singleElement()
                .asString()
                .contains("partitions");
    }

    @Test
    void composeFileValidatesAgainstTheComposeSpecification() {
        Map<String, Object> compose =
                Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0);
        assertThat(SchemaValidation.validateJsonSchema(
                        RepoFiles.path("deploy/schemas/compose-spec/compose-spec.json"),
                        SchemaValidation.toJson(compose)))
                .isEmpty();
    }

    /** The fallback renderer (used where kubectl is missing) builds what kubectl's kustomize builds. */
    @Test
    void theRendererHereBuildsWhatKubectlBuilds() {
        RequiredTool.require("kubectl", "to compare the tests' kustomize renderer with kubectl's");
        for (String dir : List.of("deploy/k8s", "deploy/k8s-small")) {
            List<Map<String, Object>> kubectl = Kustomize.renderWithKubectl(RepoFiles.path(dir));
            // kubectl orders the objects by kind; the objects themselves must be equal.
            assertThat(byIdentity(Kustomize.renderHere(RepoFiles.path(dir))))
                    .as(dir)
                    .isEqualTo(byIdentity(kubectl));
        }
    }

    private static Map<String, com.fasterxml.jackson.databind.JsonNode> byIdentity(List<Map<String, Object>> objects) {
        Map<String, com.fasterxml.jackson.databind.JsonNode> out = new java.util.TreeMap<>();
        for (Map<String, Object> o : objects) {
            out.put(o.get("kind") + "/" + Yaml.string(o, "metadata.name"), SchemaValidation.toJson(o));
        }
        assertThat(out).hasSameSizeAs(objects);
        return out;
    }

    /** The parameters reach the objects that use them (kustomize replacements and configMapKeyRefs). */
    @Test
    void siteParametersReachTheJobTheNetworkPoliciesAndThePods() {
        List<Map<String, Object>> objects = rendered();
        Map<String, Object> params = objects.stream()
                .filter(o -> "flowtrace-parameters".equals(Yaml.at(o, "metadata.name")))
                .findFirst()
                .orElseThrow();
        String endpoint = Yaml.string(params, "data.postgres-endpoint");
        Map<String, Object> fd = objects.stream()
                .filter(o -> "FlinkDeployment".equals(o.get("kind")))
                .findFirst()
                .orElseThrow();
        List<Object> args = Yaml.list(Yaml.at(fd, "spec.job.args"), "args");
        assertThat(args.get(args.indexOf("--jdbc-url") + 1).toString())
                .startsWith("jdbc:postgresql://" + endpoint + "/flowtrace?");
        String policies = SchemaValidation.toJson(objects.stream()
                        .filter(o -> "NetworkPolicy".equals(o.get("kind")))
                        .toList())
                .toString();
        assertThat(policies)
                .contains("\"" + Yaml.string(params, "data.operator-namespace") + "\"")
                .contains("\"" + Yaml.string(params, "data.prometheus-namespace") + "\"");
    }
}
