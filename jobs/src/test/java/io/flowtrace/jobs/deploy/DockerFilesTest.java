package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docker/ and deploy/grafana/ offline (no Docker engine here, and the client has no compose plugin):
 * the compose file's structure, pinned images, paths that exist, documented variables; the
 * Dockerfiles' base images against the POM's Flink version; Grafana provisioning without secrets and
 * consistent with the dashboards and the mounts.
 */
class DockerFilesTest {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)(:?[-?][^}]*)?}");

    private static Map<String, Object> compose() {
        return Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0);
    }

    private static Map<String, Object> services() {
        return Yaml.map(compose().get("services"), "services");
    }

    @Test
    void composeRunsTheWholeStackOnPinnedImages() {
        Map<String, Object> services = services();
        assertThat(services.keySet())
                .contains(
                        "kafka",
                        "postgres",
                        "jobmanager",
                        "taskmanager",
                        "grafana",
                        "agent-packets",
                        "agent-conntrack");
        services.forEach((name, s) -> {
            String image = Yaml.string(Yaml.map(s, name), "image");
            assertThat(image).as("service %s names its image", name).isNotNull();
            DeployManifestsTest.assertPinned(image, "compose service " + name);
        });
        Map<String, Object> kafka = Yaml.map(services.get("kafka"), "kafka");
        assertThat(Yaml.string(kafka, "image")).startsWith("apache/kafka:");
        assertThat(Yaml.string(kafka, "environment.KAFKA_PROCESS_ROLES")).isEqualTo("broker,controller"); // KRaft
        assertThat(Yaml.map(kafka.get("environment"), "env").keySet()).noneMatch(k -> k.contains("ZOOKEEPER"));
        assertThat(Yaml.string(services(), "postgres.image")).startsWith("postgres:");
        assertThat(Yaml.string(services(), "grafana.image")).startsWith("grafana/grafana:");
        // Application mode: the JobManager runs the job class from usrlib; the TaskManager joins it.
        List<Object> jm = Yaml.list(Yaml.at(services(), "jobmanager.command"), "command");
        assertThat(jm).startsWith("standalone-job", "--job-classname", "io.flowtrace.jobs.FlowtraceJob");
        assertThat(jm).contains("--jdbc-user", "flowtrace_writer").doesNotContain("--jdbc-password");
        assertThat(Yaml.list(Yaml.at(services(), "taskmanager.command"), "command"))
                .containsExactly("taskmanager");
        assertThat(Yaml.list(Yaml.at(services(), "agent-packets.command"), "command"))
                .startsWith("agent", "packets");
        assertThat(Yaml.list(Yaml.at(services(), "agent-conntrack.command"), "command"))
                .startsWith("agent", "conntrack");
    }

    @Test
    void everyBuildAndVolumePathExistsInTheRepository() {
        Path docker = RepoFiles.path("docker");
        services().forEach((name, s) -> {
            Map<String, Object> service = Yaml.map(s, name);
            if (service.get("build") != null) {
                Path context =
                        docker.resolve(Yaml.string(service, "build.context")).normalize();
                assertThat(context).as("build context of %s", name).isDirectory();
                assertThat(context.resolve(Yaml.string(service, "build.dockerfile")))
                        .as("Dockerfile of %s", name)
                        .isRegularFile();
            }
            for (Object v : Yaml.list(service.get("volumes"), "volumes")) {
                String source = v.toString().split(":")[0];
                if (source.startsWith(".")) {
                    assertThat(docker.resolve(source).normalize())
                            .as("volume %s of %s", v, name)
                            .exists();
                }
            }
        });
        // The replayed recordings the defaults name are committed.
        assertThat(RepoFiles.path("testdata/tcp/cubic-loss.sender.pcap.gz")).isRegularFile();
        assertThat(RepoFiles.path("testdata/conntrack/v4_plain.events.txt")).isRegularFile();
    }

    @Test
    void everyComposeVariableIsDocumentedAndSecretsAreRequired() throws IOException {
        String compose = Files.readString(RepoFiles.path("docker/compose.yaml"), StandardCharsets.UTF_8);
        String example = Files.readString(RepoFiles.path("docker/env.example"), StandardCharsets.UTF_8);
        Set<String> used = new TreeSet<>();
        Matcher m = VARIABLE.matcher(compose);
        while (m.find()) {
            used.add(m.group(1));
            if (m.group(1).contains("PASSWORD")) {
                assertThat(m.group(2))
                        .as("%s must be required (${VAR:?...})", m.group(1))
                        .startsWith(":?");
            }
        }
        assertThat(used).isNotEmpty();
        for (String v : used) {
            assertThat(example).as("docker/env.example documents %s", v).containsPattern("(?m)^" + v + "=");
        }
        // No literal secret: every *PASSWORD* environment value is a variable reference.
        services().forEach((name, s) -> {
            Object env = Yaml.map(s, name).get("environment");
            if (env != null) {
                Yaml.map(env, "environment").forEach((k, value) -> {
                    if (k.contains("PASSWORD")) {
                        assertThat(value.toString()).as("%s of %s", k, name).startsWith("${");
                    }
                });
            }
        });
        for (String line : example.lines().toList()) {
            if (line.contains("PASSWORD=")) {
                assertThat(line).as("env.example carries no password").endsWith("=");
            }
        }
    }

    @Test
    void dockerfilesBuildOnTheOfficialImagesOfOurVersions() throws IOException {
        String pom = Files.readString(RepoFiles.path("pom.xml"), StandardCharsets.UTF_8);
        Matcher flink =
                Pattern.compile("<flink.version>([^<]+)</flink.version>").matcher(pom);
        assertThat(flink.find()).isTrue();
        Matcher java = Pattern.compile("<maven.compiler.release>([^<]+)</maven.compiler.release>")
                .matcher(pom);
        String javaVersion = java.find() ? java.group(1) : "17";

        List<String> jobFroms = froms("docker/job.Dockerfile");
        assertThat(jobFroms.get(jobFroms.size() - 1))
                .isEqualTo("flink:" + flink.group(1) + "-scala_2.12-java" + javaVersion);
        String job = Files.readString(RepoFiles.path("docker/job.Dockerfile"), StandardCharsets.UTF_8);
        assertThat(job).contains("/opt/flink/usrlib/flowtrace-job.jar");
        // The jar name the Dockerfile copies is the shade plugin's finalName.
        assertThat(Files.readString(RepoFiles.path("jobs/pom.xml"), StandardCharsets.UTF_8))
                .contains("<finalName>flowtrace-job</finalName>");

        String agent = Files.readString(RepoFiles.path("docker/agent.Dockerfile"), StandardCharsets.UTF_8);
        assertThat(agent).contains("tcpdump").contains("conntrack").contains("io.flowtrace.cli.FlowtraceCli");
        for (String file : List.of("docker/job.Dockerfile", "docker/agent.Dockerfile")) {
            for (String image : froms(file)) {
                DeployManifestsTest.assertPinned(image, file);
            }
            // COPY sources from the build context (the repository root) exist.
            for (String line : Files.readAllLines(RepoFiles.path(file), StandardCharsets.UTF_8)) {
                if (line.startsWith("COPY ") && !line.contains("--from=")) {
                    String[] parts = line.substring(5).trim().split("\\s+");
                    for (int i = 0; i < parts.length - 1; i++) {
                        if (!parts[i].startsWith("--")) {
                            assertThat(RepoFiles.root().resolve(parts[i]).normalize())
                                    .as("COPY source %s in %s", parts[i], file)
                                    .exists();
                        }
                    }
                }
            }
        }
    }

    /**
     * What the Flink image's entrypoint (apache/flink-docker 2.2/scala_2.12-java17-ubuntu/docker-entrypoint.sh,
     * process_flink_properties) does to each FLINK_PROPERTIES line: {@code tr -d '[:space:]'} deletes
     * every whitespace character, then {@code IFS=':' read -r key value} splits at the first colon.
     */
    static Map<String, String> entrypointFlinkProperties(String flinkProperties) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String line : flinkProperties.split("\n")) {
            String prop = line.replaceAll("[ \t\n\u000B\f\r]", "");
            if (prop.isEmpty()) {
                continue;
            }
            int colon = prop.indexOf(':');
            out.put(colon < 0 ? prop : prop.substring(0, colon), colon < 0 ? "" : prop.substring(colon + 1));
        }
        return out;
    }

    @Test
    void theEntrypointsWhitespaceHandlingGluesJvmOptionsTogether() {
        // The reproduction itself, on the line compose used to pass: three -D flags become one argument.
        Map<String, String> glued =
                entrypointFlinkProperties("env.java.opts.all: -Da=1 -Db=2\n  parallelism.default: 2\n");
        assertThat(glued).containsEntry("env.java.opts.all", "-Da=1-Db=2").containsEntry("parallelism.default", "2");
    }

    /** Flink's options reach the processes as written: no FLINK_PROPERTIES value the entrypoint would change. */
    @Test
    void flinkServicesReadTheMountedConfigurationWithTheJvmOptionsIntact() {
        Map<String, Object> config =
                Yaml.documents(RepoFiles.path("docker/flink/config.yaml")).get(0);
        String opts = Yaml.string(config, "env.java.opts.all");
        assertThat(opts.split(" "))
                .contains(
                        "-Dorg.apache.avro.limits.bytes.maxLength=8388608",
                        "-Dorg.apache.avro.limits.string.maxLength=8388608",
                        "-Dorg.apache.avro.limits.collectionItems.maxLength=1048576");
        assertThat(Yaml.at(config, "web.submit.enable"))
                .as("no jar upload through REST")
                .isEqualTo(false);
        // Replacing the image's config.yaml must keep the distribution's Java 17 module options.
        assertThat(Yaml.string(config, "env.java.default-opts.all"))
                .contains("--add-opens=java.base/java.util=ALL-UNNAMED");
        for (String service : List.of("jobmanager", "taskmanager")) {
            Map<String, Object> s = Yaml.map(services().get(service), service);
            Map<String, Object> env = Yaml.map(s.get("environment"), "environment");
            Object props = env.get("FLINK_PROPERTIES");
            if (props != null) {
                for (String line : props.toString().split("\n")) {
                    if (!line.isBlank()) {
                        Map.Entry<String, String> kept = entrypointFlinkProperties(line)
                                .entrySet()
                                .iterator()
                                .next();
                        assertThat(kept.getKey() + ": " + kept.getValue())
                                .as("FLINK_PROPERTIES line of %s survives the entrypoint", service)
                                .isEqualTo(line.strip());
                    }
                }
            }
            assertThat(Yaml.list(s.get("volumes"), "volumes"))
                    .as(service)
                    .contains("./flink/config.yaml:/flowtrace/flink/config.yaml:ro");
            assertThat(String.join(
                            " ",
                            Yaml.list(s.get("entrypoint"), "entrypoint").stream()
                                    .map(Object::toString)
                                    .toList()))
                    .as(service)
                    .contains("cp /flowtrace/flink/config.yaml /opt/flink/conf/config.yaml")
                    .contains("exec /docker-entrypoint.sh");
        }
    }

    @Test
    void kafkaKeepsItsLogOnTheVolume() {
        Map<String, Object> kafka = Yaml.map(services().get("kafka"), "kafka");
        String logDirs = Yaml.string(kafka, "environment.KAFKA_LOG_DIRS");
        assertThat(logDirs)
                .as("KAFKA_LOG_DIRS (unset: the image writes to /tmp/kraft-combined-logs)")
                .isNotNull();
        List<String> mounts = Yaml.list(kafka.get("volumes"), "volumes").stream()
                .map(v -> v.toString().split(":")[1])
                .toList();
        for (String dir : logDirs.split(",")) {
            assertThat(mounts).as("a volume holds %s", dir).anyMatch(m -> dir.equals(m) || dir.startsWith(m + "/"));
        }
    }

    /** Published ports listen on the host's loopback only: Flink REST and Grafana are not for the network. */
    @Test
    void publishedPortsAreOnLoopbackOnly() {
        int published = 0;
        for (Map.Entry<String, Object> e : services().entrySet()) {
            for (Object port : Yaml.list(Yaml.map(e.getValue(), e.getKey()).get("ports"), "ports")) {
                assertThat(port.toString()).as("port of %s", e.getKey()).startsWith("127.0.0.1:");
                published++;
            }
        }
        assertThat(published).isPositive();
    }

    /**
     * No Docker engine here to build the images, so who runs each RUN is worked out from the base
     * images' last USER (Dockerfile.BASE_IMAGE_USERS): the Flink image ends with USER flink, where a RUN
     * mkdir of /flink-data fails with "Permission denied" and no image is built. Every RUN of these
     * files must run as root; the runtime user is then set last.
     */
    @Test
    void everyRunInstructionRunsAsRootAndTheImagesStartAsTheirRuntimeUser() {
        for (String file : List.of("docker/job.Dockerfile", "docker/agent.Dockerfile")) {
            Dockerfile dockerfile = Dockerfile.parse(RepoFiles.path(file));
            assertThat(dockerfile.all("RUN")).as("RUN instructions of %s", file).isNotEmpty();
            for (Dockerfile.Instruction run : dockerfile.all("RUN")) {
                assertThat(Dockerfile.isRoot(run.user()))
                        .as("%s %s runs as root", file, run)
                        .isTrue();
            }
        }
        // The job image keeps the Flink image's user (uid 9999, the FlinkDeployment's runAsUser); the
        // agents start as root because added capabilities reach only root processes (50-agent-daemonset.yaml).
        assertThat(Dockerfile.parse(RepoFiles.path("docker/job.Dockerfile")).runtimeUser())
                .isEqualTo("flink");
        assertThat(Dockerfile.parse(RepoFiles.path("docker/agent.Dockerfile")).runtimeUser())
                .isEqualTo("root");
    }

    @Test
    void grafanaProvisioningTakesEveryConnectionValueFromTheEnvironment() throws IOException {
        Path file = RepoFiles.path("deploy/grafana/provisioning/datasources/flowtrace.yaml");
        Map<String, Object> ds = Yaml.map(
                Yaml.list(Yaml.documents(file).get(0).get("datasources"), "datasources")
                        .get(0),
                "ds");
        assertThat(ds.get("type")).isEqualTo("grafana-postgresql-datasource");
        for (String path : List.of("url", "user", "jsonData.database", "jsonData.sslmode", "secureJsonData.password")) {
            assertThat(Yaml.string(ds, path)).as(path).matches("(\\$\\{[A-Z0-9_]+}:?)+");
        }
        // Every dashboard queries this datasource by uid.
        String uid = (String) ds.get("uid");
        for (GrafanaDashboards.Dashboard d : GrafanaDashboards.all()) {
            Yaml.walk(new com.fasterxml.jackson.databind.ObjectMapper().convertValue(d.root(), Map.class), node -> {
                if (node.get("datasource") instanceof Map<?, ?> ref) {
                    assertThat(ref.get("uid")).as("datasource of %s", d.uid()).isEqualTo(uid);
                }
            });
        }
        // The variables the datasource file reads are set for Grafana in compose and in Kubernetes.
        Set<String> needed = new TreeSet<>();
        Matcher m = VARIABLE.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (m.find()) {
            needed.add(m.group(1));
        }
        assertThat(Yaml.map(Yaml.at(services(), "grafana.environment"), "env").keySet())
                .containsAll(needed);
        List<String> k8sEnv = new ArrayList<>();
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/60-grafana.yaml"))) {
            Yaml.walk(doc, node -> {
                if (node.containsKey("name") && (node.containsKey("value") || node.containsKey("valueFrom"))) {
                    k8sEnv.add(node.get("name").toString());
                }
            });
        }
        assertThat(k8sEnv).containsAll(needed);

        // The dashboard provider reads the directory compose and Kubernetes mount the dashboards at.
        Map<String, Object> provider = Yaml.map(
                Yaml.list(
                                Yaml.documents(RepoFiles.path("deploy/grafana/provisioning/dashboards/flowtrace.yaml"))
                                        .get(0)
                                        .get("providers"),
                                "providers")
                        .get(0),
                "provider");
        String path = Yaml.string(provider, "options.path");
        assertThat(Yaml.list(Yaml.at(services(), "grafana.volumes"), "volumes"))
                .contains("../deploy/grafana/dashboards:" + path + ":ro");
        assertThat(Files.readString(RepoFiles.path("deploy/k8s/60-grafana.yaml"), StandardCharsets.UTF_8))
                .contains("mountPath: " + path);
    }

    private static List<String> froms(String file) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(RepoFiles.path(file), StandardCharsets.UTF_8)) {
            if (line.startsWith("FROM ")) {
                out.add(line.substring(5).trim().split("\\s+")[0]);
            }
        }
        return out;
    }
}
