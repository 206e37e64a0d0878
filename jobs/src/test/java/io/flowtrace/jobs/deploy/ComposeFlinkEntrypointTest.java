package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compose Flink services' effective configuration, computed by running the flink:2.2.1 image's own
 * {@code /docker-entrypoint.sh} (vendored unchanged in src/test/resources/flink-docker, commit pinned in
 * its header) on each service's environment and command, with bash and a stub {@code $FLINK_HOME}: the
 * stub {@code bin/config-parser-utils.sh} records the {@code -Dkey=value} options the entrypoint hands to
 * Flink's configuration rewrite, and Flink's own {@link GlobalConfiguration} merges them over the
 * {@code config.yaml} that compose copies in first. {@code hostname -f} answers a container id, as in a
 * container without a fixed hostname.
 */
class ComposeFlinkEntrypointTest {
    private static final String CONTAINER_ID = "3f9c2a7d41be";

    @TempDir
    Path tmp;

    @Test
    void theTaskManagerLooksForTheJobManagerAtItsServiceName() throws Exception {
        Configuration tm = effective("taskmanager");
        assertThat(tm.toMap()).containsEntry("jobmanager.rpc.address", "jobmanager");
        Configuration jm = effective("jobmanager");
        assertThat(jm.toMap()).containsEntry("jobmanager.rpc.address", "jobmanager");
        // The two processes must agree on the RPC port too (config.yaml's 6123).
        assertThat(tm.toMap().get("jobmanager.rpc.port")).isEqualTo("6123");
    }

    /** Every key docker/flink/config.yaml sets keeps its value after the entrypoint, in both services. */
    @Test
    void theEntrypointChangesNoKeyOfTheConfigFile() throws Exception {
        Map<String, String> file = GlobalConfiguration.loadConfiguration(
                        RepoFiles.path("docker/flink").toString())
                .toMap();
        assertThat(file).containsKey("taskmanager.numberOfTaskSlots");
        for (String service : List.of("jobmanager", "taskmanager")) {
            Map<String, String> effective = effective(service).toMap();
            file.forEach((key, value) -> assertThat(effective.get(key))
                    .as("%s of service %s", key, service)
                    .isEqualTo(value));
        }
    }

    private Configuration effective(String service) throws IOException, InterruptedException {
        Map<String, Object> s = Yaml.map(
                Yaml.at(Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0), "services." + service), service);
        Path home = tmp.resolve(service);
        Path conf = Files.createDirectories(home.resolve("conf"));
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path fakeBin = Files.createDirectories(home.resolve("fake-path"));
        // compose's entrypoint: cp /flowtrace/flink/config.yaml /opt/flink/conf/config.yaml, then the image's.
        Files.copy(RepoFiles.path("docker/flink/config.yaml"), conf.resolve("config.yaml"));
        Path recorded = home.resolve("dynamic-properties");
        script(bin.resolve("config-parser-utils.sh"), "shift 3\nprintf '%s\\n' \"$@\" >> '" + recorded + "'\n");
        for (String start : List.of("jobmanager.sh", "taskmanager.sh", "standalone-job.sh")) {
            script(bin.resolve(start), "echo \"started $0 $*\"\n");
        }
        script(fakeBin.resolve("hostname"), "echo " + CONTAINER_ID + "\n");

        List<String> command = new ArrayList<>(List.of("bash", entrypoint().toString()));
        Yaml.list(s.get("command"), "command").forEach(c -> command.add(c.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", fakeBin + ":/usr/bin:/bin");
        env.put("FLINK_HOME", home.toString());
        env.put("DISABLE_JEMALLOC", "true");
        if (s.get("environment") != null) {
            // ${VAR:?...} values come from docker/.env; any value does here.
            Yaml.map(s.get("environment"), "environment")
                    .forEach((k, v) -> env.put(k, String.valueOf(v).replaceAll("\\$\\{[^}]*}", "x")));
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("entrypoint of %s: %s", service, out).isZero();
        assertThat(out).contains("started");

        Configuration dynamic = new Configuration();
        for (String line : Files.readAllLines(recorded)) {
            assertThat(line).startsWith("-D").contains("=");
            int eq = line.indexOf('=');
            dynamic.setString(line.substring(2, eq), line.substring(eq + 1));
        }
        return GlobalConfiguration.loadConfiguration(conf.toString(), dynamic);
    }

    private static Path entrypoint() {
        return RepoFiles.path("jobs/src/test/resources/flink-docker/docker-entrypoint.sh");
    }

    private static void script(Path path, String body) throws IOException {
        Files.writeString(path, "#!/bin/bash\n" + body);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
