package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;

/**
 * What a first deployment needs beyond valid manifests: RuntimeDefault seccomp on every pod, a default
 * deny and a PostgreSQL policy, agents' probes that a Kafka outage cannot turn into restarts, ports that
 * do not clash on the node, current patch releases, non-root compose agents and Flink's Prometheus
 * reporter everywhere.
 */
class DeployHardeningTest {
    private static List<Map<String, Object>> rendered() {
        return Kustomize.render(RepoFiles.path("deploy/k8s"));
    }

    private static Map<String, Object> only(String kind) {
        List<Map<String, Object>> found =
                rendered().stream().filter(o -> kind.equals(o.get("kind"))).toList();
        assertThat(found).as(kind).hasSize(1);
        return found.get(0);
    }

    /** Every pod spec of every workload, with where it came from. */
    private static Map<String, Map<String, Object>> podSpecs() {
        Map<String, Map<String, Object>> out = new java.util.TreeMap<>();
        for (Map<String, Object> o : rendered()) {
            String path = switch (Yaml.string(o, "kind")) {
                case "DaemonSet", "Deployment" -> "spec.template.spec";
                case "CronJob" -> "spec.jobTemplate.spec.template.spec";
                case "FlinkDeployment" -> "spec.podTemplate.spec";
                default -> null;
            };
            if (path != null) {
                out.put(o.get("kind") + "/" + Yaml.string(o, "metadata.name"), Yaml.map(Yaml.at(o, path), path));
            }
        }
        return out;
    }

    @Test
    void everyPodRunsUnderTheRuntimeDefaultSeccompProfile() {
        Map<String, Map<String, Object>> pods = podSpecs();
        assertThat(pods).hasSize(4);
        pods.forEach((name, spec) -> assertThat(Yaml.at(spec, "securityContext.seccompProfile.type"))
                .as("seccompProfile of %s", name)
                .isEqualTo("RuntimeDefault"));
    }

    /** The agents' pods (hostNetwork, NET_ADMIN, SETUID, SETGID, KILL) pass only Pod Security's "privileged" level. */
    @Test
    void theNamespaceAdmitsTheAgentsPrivileges() {
        Map<String, Object> labels = Yaml.map(Yaml.at(only("Namespace"), "metadata.labels"), "namespace labels");
        assertThat(labels).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
        assertThat(Yaml.at(only("DaemonSet"), "spec.template.spec.hostNetwork")).isEqualTo(true);
    }

    @Test
    void ingressIsDeniedByDefaultAndPostgresAdmitsOnlyItsThreeClients() {
        List<Map<String, Object>> policies = rendered().stream()
                .filter(o -> "NetworkPolicy".equals(o.get("kind")))
                .toList();
        assertThat(policies)
                .as("a policy selecting every pod, for ingress, with no rule")
                .anyMatch(p -> Yaml.map(Yaml.at(p, "spec.podSelector"), "podSelector")
                                .isEmpty()
                        && Yaml.list(Yaml.at(p, "spec.policyTypes"), "types").contains("Ingress")
                        && Yaml.at(p, "spec.ingress") == null);
        Map<String, Object> pg = policies.stream()
                .filter(p -> Yaml.at(p, "spec.podSelector.matchLabels") instanceof Map<?, ?> labels
                        && "flowtrace-postgres".equals(labels.get("app.kubernetes.io/name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no NetworkPolicy selects the PostgreSQL pods"));
        List<Object> rules = Yaml.list(Yaml.at(pg, "spec.ingress"), "ingress");
        assertThat(rules).hasSize(1);
        Map<String, Object> rule = Yaml.map(rules.get(0), "rule");
        assertThat(SchemaValidation.toJson(rule.get("ports")).toString()).contains("5432");
        List<String> clients = new ArrayList<>();
        for (Object from : Yaml.list(rule.get("from"), "from")) {
            clients.add(SchemaValidation.toJson(Yaml.at(Yaml.map(from, "peer"), "podSelector.matchLabels"))
                    .toString());
        }
        assertThat(clients)
                .containsExactlyInAnyOrder(
                        "{\"app\":\"flowtrace\",\"type\":\"flink-native-kubernetes\"}",
                        "{\"app.kubernetes.io/name\":\"flowtrace-grafana\"}",
                        "{\"app.kubernetes.io/name\":\"flowtrace-retention\"}");
    }

    /**
     * Readiness on /healthz (not delivering = not ready), liveness on /livez (a crash loop only), with
     * timeouts above the endpoint's 2-3 s request deadline; metrics ports that clash neither with
     * OpenTelemetry's Prometheus exporter (9464), node_exporter (9100) nor Flink's reporter (9249), all of
     * which commonly listen on a node's network too.
     */
    @Test
    void agentProbesSurviveKafkaOutagesAndPortsDoNotClash() {
        Map<String, Object> ds = only("DaemonSet");
        for (Object c : Yaml.list(Yaml.at(ds, "spec.template.spec.containers"), "containers")) {
            Map<String, Object> container = Yaml.map(c, "container");
            String name = Yaml.string(container, "name");
            List<Object> args = Yaml.list(container.get("args"), "args");
            String port = args.get(args.indexOf("--metrics-port") + 1).toString();
            assertThat(port).as(name).isNotIn("9464", "9100", "9249", "9250");
            assertThat(Yaml.string(container, "readinessProbe.httpGet.path")).isEqualTo("/healthz");
            assertThat(Yaml.string(container, "livenessProbe.httpGet.path"))
                    .as("liveness of %s", name)
                    .isEqualTo("/livez");
            assertThat(Yaml.string(container, "livenessProbe.httpGet.port")).isEqualTo(port);
            for (String probe : List.of("readinessProbe", "livenessProbe")) {
                assertThat(((Number) Yaml.at(container, probe + ".timeoutSeconds")).intValue())
                        .as("%s timeout of %s", probe, name)
                        .isGreaterThanOrEqualTo(4);
            }
        }
    }

    /** Not older than the patch releases with the fixes known when this was written (PostgreSQL 17.10, Grafana 12.4.4). */
    @Test
    void imagesAreAtLeastTheCurrentPatchReleases() {
        Map<String, int[]> floors = Map.of("postgres", new int[] {17, 10}, "grafana/grafana", new int[] {12, 4, 4});
        List<String> images = new ArrayList<>();
        for (Map<String, Object> o : rendered()) {
            Yaml.walk(o, node -> {
                if (node.get("image") instanceof String image) {
                    images.add(image);
                }
            });
        }
        Map<String, Object> services = Yaml.map(
                Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0).get("services"), "services");
        services.forEach((name, s) -> images.add(Yaml.string(Yaml.map(s, name), "image")));
        int checked = 0;
        for (String image : images) {
            int colon = image.lastIndexOf(':');
            int[] floor = floors.get(image.substring(0, colon));
            if (floor == null) {
                continue;
            }
            checked++;
            String[] parts = image.substring(colon + 1).split("[.-]");
            for (int i = 0; i < floor.length; i++) {
                int v = Integer.parseInt(parts[i]);
                if (v != floor[i]) {
                    assertThat(v).as("%s", image).isGreaterThan(floor[i]);
                    break;
                }
            }
        }
        assertThat(checked).as("postgres and grafana images in k8s and compose").isEqualTo(4);
    }

    /** Compose's agents replay files: no capability, not root, no privilege gain. */
    @Test
    void composeAgentsRunAsAnUnprivilegedUser() {
        Map<String, Object> services = Yaml.map(
                Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0).get("services"), "services");
        for (String agent : List.of("agent-packets", "agent-conntrack")) {
            Map<String, Object> s = Yaml.map(services.get(agent), agent);
            String user = String.valueOf(s.get("user"));
            assertThat(user).as("user of %s", agent).matches("[1-9][0-9]*:[1-9][0-9]*");
            assertThat(Yaml.list(s.get("cap_drop"), "cap_drop")).containsExactly("ALL");
            assertThat(Yaml.list(s.get("security_opt"), "security_opt")).contains("no-new-privileges:true");
            // The spool volume is created from the image's directory, owned by that user.
            assertThat(readString(RepoFiles.path("docker/agent.Dockerfile")))
                    .contains("chown " + user + " /var/lib/flowtrace/spool");
        }
    }

    private static String readString(java.nio.file.Path file) {
        try {
            return java.nio.file.Files.readString(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Flink's Prometheus reporter in compose's config.yaml and the FlinkDeployment, on the port the policies open. */
    @Test
    void flinksPrometheusReporterIsOnInEveryDeployment() {
        Map<String, String> compose = GlobalConfiguration.loadConfiguration(
                        RepoFiles.path("docker/flink").toString())
                .toMap();
        Map<String, Object> k8s =
                Yaml.map(Yaml.at(only("FlinkDeployment"), "spec.flinkConfiguration"), "flinkConfiguration");
        for (Map<String, ?> config : List.of(compose, k8s)) {
            assertThat(config.get("metrics.reporter.prom.factory.class"))
                    .hasToString("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            assertThat(String.valueOf(config.get("metrics.reporter.prom.port"))).isEqualTo("9249");
        }
    }
}
