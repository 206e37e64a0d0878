package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.JobTopics;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.testkit.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * deploy/k8s offline: every manifest parses, has a known kind for its apiVersion and the fields its
 * kind needs; images are pinned; each agent container gets the capabilities of its one job and nothing
 * else (CapabilitiesITCase runs them), never privileged;
 * secrets are referenced, never inlined; topics match the job's defaults. With kubectl on the PATH,
 * {@code kubectl kustomize deploy/k8s} must build the same objects (kubectl apply --dry-run=client needs
 * an API server for discovery even with --validate=false, so it cannot run here).
 */
class DeployManifestsTest {
    private static final Map<String, String> API_VERSIONS = Map.ofEntries(
            Map.entry("Namespace", "v1"),
            Map.entry("ConfigMap", "v1"),
            Map.entry("NetworkPolicy", "networking.k8s.io/v1"),
            Map.entry("ServiceAccount", "v1"),
            Map.entry("PersistentVolumeClaim", "v1"),
            Map.entry("Service", "v1"),
            Map.entry("Role", "rbac.authorization.k8s.io/v1"),
            Map.entry("RoleBinding", "rbac.authorization.k8s.io/v1"),
            Map.entry("Deployment", "apps/v1"),
            Map.entry("DaemonSet", "apps/v1"),
            Map.entry("CronJob", "batch/v1"),
            Map.entry("KafkaTopic", "kafka.strimzi.io/v1"),
            Map.entry("FlinkDeployment", "flink.apache.org/v1beta1"));
    private static final String NAMESPACE = "flowtrace";

    private record Manifest(Path file, Map<String, Object> doc) {
        String kind() {
            return Yaml.string(doc, "kind");
        }

        String name() {
            return Yaml.string(doc, "metadata.name");
        }

        @Override
        public String toString() {
            return file.getFileName() + " " + kind() + "/" + name();
        }
    }

    private static List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(RepoFiles.path("deploy/k8s"))) {
            return s.filter(p -> p.toString().endsWith(".yaml")
                            && !p.getFileName().toString().equals("kustomization.yaml"))
                    .sorted()
                    .toList();
        }
    }

    private static List<Manifest> manifests() throws IOException {
        List<Manifest> out = new ArrayList<>();
        for (Path f : files()) {
            for (Map<String, Object> doc : Yaml.documents(f)) {
                out.add(new Manifest(f, doc));
            }
        }
        return out;
    }

    @Test
    void everyManifestHasAKnownKindApiVersionAndIdentity() throws IOException {
        List<Manifest> all = manifests();
        assertThat(all).extracting(Manifest::kind).contains("FlinkDeployment", "DaemonSet", "KafkaTopic");
        for (Manifest m : all) {
            assertThat(API_VERSIONS).as("kind of %s", m).containsKey(m.kind());
            assertThat(Yaml.string(m.doc(), "apiVersion"))
                    .as("apiVersion of %s", m)
                    .isEqualTo(API_VERSIONS.get(m.kind()));
            assertThat(m.name()).as("metadata.name of %s", m).isNotBlank();
            if (!m.kind().equals("Namespace")) {
                assertThat(Yaml.string(m.doc(), "metadata.namespace"))
                        .as("namespace of %s", m)
                        .isEqualTo(NAMESPACE);
            }
        }
    }

    @Test
    void flinkDeploymentRunsTheJobJarInApplicationModeWithRocksDbCheckpointsAndHa() throws IOException {
        Manifest fd = only("FlinkDeployment");
        Map<String, Object> spec = Yaml.map(fd.doc().get("spec"), "spec");
        assertThat(spec.get("flinkVersion")).isEqualTo("v2_2");
        Map<String, Object> conf = Yaml.map(spec.get("flinkConfiguration"), "flinkConfiguration");
        assertThat(conf.get("state.backend.type")).isEqualTo("rocksdb");
        assertThat(conf.get("high-availability.type")).isEqualTo("kubernetes");
        assertThat((String) conf.get("high-availability.storageDir")).isNotBlank();
        assertThat((String) conf.get("execution.checkpointing.dir")).startsWith("file:///flink-data/");
        assertThat((String) conf.get("execution.checkpointing.savepoint-dir")).startsWith("file:///flink-data/");
        // The operator trims old savepoints to history.max.count, but deletes their files only with
        // dispose-on-delete (default false): without it the 50 Gi volume fills up.
        assertThat(conf.get("kubernetes.operator.savepoint.history.max.count")).isNotNull();
        assertThat(conf.get("kubernetes.operator.savepoint.dispose-on-delete")).isEqualTo("true");
        // REST inside the cluster only, without jar upload (application mode needs none).
        assertThat(conf)
                .containsEntry("kubernetes.rest-service.exposed.type", "ClusterIP")
                .containsEntry("web.submit.enable", "false");
        // Flink 2.2 deprecates state.backend.incremental.
        assertThat(conf)
                .doesNotContainKey("state.backend.incremental")
                .containsEntry("execution.checkpointing.incremental", "true");
        // Index blocks that outgrow a block-cache shard made every get re-read them (docs/BENCHMARKS.md,
        // "Scale probe at 10^6 flows"); bench's scale probe reads these two from this file.
        assertThat(conf)
                .containsEntry("state.backend.rocksdb.memory.partitioned-index-filters", "true")
                .containsEntry("state.backend.rocksdb.use-bloom-filter", "true");
        // Application mode: a job section with the jar inside the image (docker/job.Dockerfile puts it there).
        assertThat(Yaml.string(spec, "job.jarURI")).isEqualTo("local:///opt/flink/usrlib/flowtrace-job.jar");
        assertThat(Yaml.string(spec, "job.entryClass")).isEqualTo("io.flowtrace.jobs.FlowtraceJob");
        assertThat(Yaml.string(spec, "job.upgradeMode")).isEqualTo("savepoint");
        // The checkpoint volume is mounted and its claim is in the manifests; so is the service account.
        assertThat(names("PersistentVolumeClaim"))
                .contains(Yaml.string(
                        Yaml.map(
                                Yaml.list(Yaml.at(spec, "podTemplate.spec.volumes"), "volumes")
                                        .get(0),
                                "volume"),
                        "persistentVolumeClaim.claimName"));
        assertThat(names("ServiceAccount")).contains((String) spec.get("serviceAccount"));
        // Source parallelism = packets partitions: more subtasks would idle, fewer would cap throughput.
        assertThat(Yaml.at(spec, "job.parallelism"))
                .isEqualTo(topicPartitions().get(JobOption.PACKETS_TOPIC.defaultValue()));
        List<Object> args = Yaml.list(Yaml.at(spec, "job.args"), "args");
        assertThat(args).contains("--jdbc-password-file", "--config").doesNotContain("--jdbc-password");
    }

    /**
     * packets: NET_RAW for the packet socket, SETUID and SETGID for tcpdump's switch to user tcpdump, KILL to signal it after;
     * conntrack: NET_ADMIN for the ctnetlink groups and SO_RCVBUFFORCE. Each is probed on /healthz.
     */
    @Test
    void agentsRunOnTheHostNetworkWithTheCapabilitiesOfTheirOneJob() throws IOException {
        Manifest ds = only("DaemonSet");
        Map<String, Object> pod = Yaml.map(Yaml.at(ds.doc(), "spec.template.spec"), "pod spec");
        assertThat(pod.get("hostNetwork")).isEqualTo(true);
        assertThat(pod.get("hostPID")).isNotEqualTo(true);
        assertThat(pod.get("hostIPC")).isNotEqualTo(true);
        List<Object> containers = Yaml.list(pod.get("containers"), "containers");
        assertThat(containers).hasSize(2);
        Map<String, List<String>> expected =
                Map.of("packets", List.of("NET_RAW", "SETUID", "SETGID", "KILL"), "conntrack", List.of("NET_ADMIN"));
        for (Object c : containers) {
            Map<String, Object> container = Yaml.map(c, "container");
            String name = Yaml.string(container, "name");
            assertThat(Yaml.at(container, "securityContext.privileged")).isEqualTo(false);
            assertThat(Yaml.at(container, "securityContext.allowPrivilegeEscalation"))
                    .isEqualTo(false);
            assertThat(Yaml.list(Yaml.at(container, "securityContext.capabilities.drop"), "drop"))
                    .containsExactly("ALL");
            assertThat(Yaml.list(Yaml.at(container, "securityContext.capabilities.add"), "add"))
                    .as(name)
                    .containsExactlyInAnyOrderElementsOf(expected.get(name));
            // The probe asks the agent's own endpoint: --metrics-port, on the node's loopback.
            List<Object> args = Yaml.list(container.get("args"), "args");
            Object port = args.get(args.indexOf("--metrics-port") + 1);
            assertThat(args).as(name).doesNotContain("--metrics-address");
            assertThat(Yaml.string(container, "readinessProbe.httpGet.path"))
                    .as(name)
                    .isEqualTo("/healthz");
            assertThat(Yaml.string(container, "readinessProbe.httpGet.host"))
                    .as(name)
                    .isEqualTo("127.0.0.1");
            assertThat(Yaml.string(container, "readinessProbe.httpGet.port"))
                    .as(name)
                    .isEqualTo(port.toString());
        }
    }

    /** Every PostgreSQL client checks the server's certificate against a mounted CA (verify-full). */
    @Test
    void everyPostgresConnectionVerifiesTheServerCertificate() throws IOException {
        int clients = 0;
        for (Manifest m : manifests()) {
            List<Map<String, Object>> containers = new ArrayList<>();
            Yaml.walk(m.doc(), node -> {
                if (node.containsKey("image") && node.containsKey("name")) {
                    containers.add(node);
                }
            });
            for (Map<String, Object> c : containers) {
                Map<String, String> env = new java.util.HashMap<>();
                for (Object e : Yaml.list(c.get("env"), "env")) {
                    Map<String, Object> var = Yaml.map(e, "env var");
                    env.put(
                            var.get("name").toString(),
                            var.get("value") == null ? null : var.get("value").toString());
                }
                String mode = env.containsKey("PGSSLMODE") ? env.get("PGSSLMODE") : env.get("FLOWTRACE_PG_SSLMODE");
                String rootCert = env.containsKey("PGSSLROOTCERT")
                        ? env.get("PGSSLROOTCERT")
                        : env.get("FLOWTRACE_PG_SSLROOTCERT");
                if (mode == null) {
                    continue;
                }
                clients++;
                assertThat(mode).as("sslmode of %s", m).isEqualTo("verify-full");
                List<String> mounts = Yaml.list(c.get("volumeMounts"), "volumeMounts").stream()
                        .map(v -> Yaml.string(Yaml.map(v, "mount"), "mountPath"))
                        .toList();
                assertThat(mounts)
                        .as("the CA file %s of %s is on a mounted volume", rootCert, m)
                        .anyMatch(path -> rootCert != null && rootCert.startsWith(path + "/"));
            }
        }
        assertThat(clients).as("Grafana and the retention CronJob").isEqualTo(2);
        List<Object> jobArgs = Yaml.list(Yaml.at(only("FlinkDeployment").doc(), "spec.job.args"), "args");
        assertThat(jobArgs.get(jobArgs.indexOf("--jdbc-url") + 1).toString())
                .contains("sslmode=verify-full")
                .contains("sslrootcert=");
        // The retention job logs in as the role that can only purge (deploy/sql/admin/roles.sql).
        assertThat(SchemaValidation.toJson(only("CronJob").doc()).toString())
                .contains("\"flowtrace_retention\"")
                .doesNotContain("flowtrace_writer");
    }

    /** The job computes the ENOBUFS risk for the buffer the conntrack agents really request. */
    @Test
    void jobAssumesTheReceiveBufferTheConntrackAgentsRequest() throws IOException {
        List<Object> jobArgs = Yaml.list(Yaml.at(only("FlinkDeployment").doc(), "spec.job.args"), "args");
        String jobBuffer = jobArgs.get(jobArgs.indexOf("--" + JobOption.CONNTRACK_RECEIVE_BUFFER_BYTES.key()) + 1)
                .toString();
        for (Object c : Yaml.list(Yaml.at(only("DaemonSet").doc(), "spec.template.spec.containers"), "containers")) {
            List<Object> args = Yaml.list(Yaml.map(c, "container").get("args"), "args");
            if (args.contains("conntrack")) {
                assertThat(args.get(args.indexOf("--rcvbuf") + 1).toString()).isEqualTo(jobBuffer);
            }
        }
    }

    @Test
    void nothingIsPrivilegedAndEveryImageIsPinned() throws IOException {
        for (Manifest m : manifests()) {
            Yaml.walk(m.doc(), node -> {
                if (node.containsKey("privileged")) {
                    assertThat(node.get("privileged")).as("privileged in %s", m).isEqualTo(false);
                }
                Object caps = node.get("capabilities");
                if (caps != null) {
                    assertThat(Yaml.list(Yaml.map(caps, "capabilities").get("add"), "add"))
                            .as("added capabilities in %s", m)
                            .isSubsetOf("NET_RAW", "NET_ADMIN", "SETUID", "SETGID", "KILL");
                }
                if (node.get("image") instanceof String image) {
                    assertPinned(image, m.toString());
                }
            });
        }
    }

    @Test
    void secretsAreReferencedNeverInlinedAndDocumented() throws IOException {
        String operations = Files.readString(RepoFiles.path("docs/operations.md"), StandardCharsets.UTF_8);
        Set<String> referenced = new TreeSet<>();
        for (Manifest m : manifests()) {
            assertThat(m.kind()).as("no Secret objects with values in git").isNotEqualTo("Secret");
            Yaml.walk(m.doc(), node -> {
                if (node.get("name") instanceof String name && name.matches("(?i).*(PASSWORD|SECRET|TOKEN).*")) {
                    assertThat(node)
                            .as("env %s in %s comes from a secretKeyRef", name, m)
                            .doesNotContainKey("value");
                    assertThat(Yaml.at(node, "valueFrom.secretKeyRef.name"))
                            .as("env %s in %s", name, m)
                            .isNotNull();
                }
                Object ref = Yaml.at(node, "secretKeyRef.name");
                if (ref != null) {
                    referenced.add(ref.toString());
                }
                Object secretVolume = Yaml.at(node, "secret.secretName");
                if (secretVolume != null) {
                    referenced.add(secretVolume.toString());
                }
            });
            for (Object arg : Yaml.list(Yaml.at(m.doc(), "spec.job.args"), "args")) {
                assertThat(arg.toString()).as("job argument").doesNotContainIgnoringCase("password=");
            }
        }
        assertThat(referenced).isNotEmpty();
        for (String secret : referenced) {
            assertThat(operations)
                    .as("docs/operations.md explains secret %s", secret)
                    .contains(secret);
        }
    }

    @Test
    void kafkaTopicsAreTheJobsTopicsWithSizedPartitions() throws IOException {
        Map<String, Object> partitions = topicPartitions();
        Set<String> jobTopics = new HashSet<>();
        for (JobOption o : JobTopics.ALL) {
            jobTopics.add(o.defaultValue());
        }
        assertThat(partitions.keySet()).isEqualTo(jobTopics);
        for (Manifest t : all("KafkaTopic")) {
            assertThat(Yaml.map(Yaml.at(t.doc(), "metadata.labels"), "labels").get("strimzi.io/cluster"))
                    .as("%s", t)
                    .isEqualTo("flowtrace");
            assertThat((Integer) Yaml.at(t.doc(), "spec.partitions"))
                    .as("%s", t)
                    .isPositive();
            assertThat((Integer) Yaml.at(t.doc(), "spec.replicas")).as("%s", t).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void kustomizationListsEveryManifestAndKubectlBuildsIt() throws Exception {
        Map<String, Object> k =
                Yaml.documents(RepoFiles.path("deploy/k8s/kustomization.yaml")).get(0);
        List<String> listed = Yaml.list(k.get("resources"), "resources").stream()
                .map(Object::toString)
                .toList();
        assertThat(listed)
                .containsExactlyElementsOf(
                        files().stream().map(p -> p.getFileName().toString()).toList());

        Path kubectl = RequiredTool.require("kubectl", "for the offline kustomize build");
        Path out = Files.createTempFile("kustomize", ".yaml");
        Process p = new ProcessBuilder(
                        kubectl.toString(),
                        "kustomize",
                        RepoFiles.path("deploy/k8s").toString())
                .redirectErrorStream(false)
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("kubectl kustomize finished")
                .isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize exit status").isZero();
        List<Map<String, Object>> built = Yaml.documents(out);
        Files.delete(out);
        assertThat(built).hasSize(manifests().size());
    }

    static void assertPinned(String image, String where) {
        assertThat(image).as("image in %s", where).doesNotEndWith(":latest").doesNotContain("${");
        String afterRegistryPort = image.substring(image.lastIndexOf('/') + 1);
        assertThat(afterRegistryPort)
                .as("image %s in %s has a tag or digest", image, where)
                .containsAnyOf(":", "@sha256:");
    }

    private static Map<String, Object> topicPartitions() throws IOException {
        Map<String, Object> out = new java.util.TreeMap<>();
        for (Manifest t : all("KafkaTopic")) {
            out.put(t.name(), Yaml.at(t.doc(), "spec.partitions"));
        }
        return out;
    }

    private static List<Manifest> all(String kind) throws IOException {
        return manifests().stream().filter(m -> kind.equals(m.kind())).toList();
    }

    private static Manifest only(String kind) throws IOException {
        List<Manifest> found = all(kind);
        assertThat(found).as("%s manifests", kind).hasSize(1);
        return found.get(0);
    }

    private static Set<String> names(String kind) throws IOException {
        Set<String> out = new HashSet<>();
        for (Manifest m : all(kind)) {
            out.add(m.name());
        }
        return out;
    }
}
