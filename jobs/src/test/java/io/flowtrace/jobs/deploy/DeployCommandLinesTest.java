package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.flowtrace.cli.FlowtraceCli;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command line the deploy files give the job and the agents parses with the real option
 * parsers (the job's JobConfig, the agents' picocli commands), so a misspelt or removed option fails
 * here and not in a pod. Nothing is run; files the arguments name are not read (--config is replaced
 * by an empty file).
 */
class DeployCommandLinesTest {
    @Test
    void theFlinkDeploymentsJobArgumentsParse() throws IOException {
        Map<String, Object> fd = Kustomize.render(RepoFiles.path("deploy/k8s")).stream()
                .filter(o -> "FlinkDeployment".equals(o.get("kind")))
                .findFirst()
                .orElseThrow();
        JobConfig config =
                JobConfig.fromArgs(withEmptyConfig(strings(Yaml.list(Yaml.at(fd, "spec.job.args"), "args"))));
        assertThat(config.get(JobOption.JDBC_URL)).contains("sslmode=verify-full");
        assertThat(config.get(JobOption.JDBC_USER)).isEqualTo("flowtrace_writer");
    }

    @Test
    void composesJobArgumentsParse() throws IOException {
        List<String> command = strings(Yaml.list(Yaml.at(compose(), "services.jobmanager.command"), "command"));
        // standalone-job --job-classname CLASS, then the job's own arguments.
        assertThat(command.subList(0, 3))
                .containsExactly("standalone-job", "--job-classname", "io.flowtrace.jobs.FlowtraceJob");
        JobConfig config = JobConfig.fromArgs(command.subList(3, command.size()).toArray(String[]::new));
        assertThat(config.get(JobOption.BOOTSTRAP_SERVERS)).isEqualTo("kafka:9092");
    }

    @Test
    void everyAgentCommandLineParses() {
        List<List<String>> lines = new ArrayList<>();
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/50-agent-daemonset.yaml"))) {
            for (Object c : Yaml.list(Yaml.at(doc, "spec.template.spec.containers"), "containers")) {
                // $(VAR) is expanded by the kubelet from the container's environment: give it a value.
                lines.add(strings(Yaml.list(Yaml.map(c, "container").get("args"), "args")).stream()
                        .map(a -> a.replace("$(NODE_NAME)", "node-1").replace("$(FLOWTRACE_IFACE)", "any"))
                        .toList());
            }
        }
        Map<String, Object> services = Yaml.map(compose().get("services"), "services");
        for (String agent : List.of("agent-packets", "agent-conntrack")) {
            lines.add(strings(Yaml.list(Yaml.at(services, agent + ".command"), "command")).stream()
                    .map(a -> a.replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1"))
                    .toList());
        }
        assertThat(lines).hasSize(4);
        for (List<String> args : lines) {
            assertThatCode(() -> new CommandLine(new FlowtraceCli()).parseArgs(args.toArray(String[]::new)))
                    .as("flowtrace %s", args)
                    .doesNotThrowAnyException();
        }
    }

    private static Map<String, Object> compose() {
        return Yaml.documents(RepoFiles.path("docker/compose.yaml")).get(0);
    }

    private static List<String> strings(List<Object> list) {
        return list.stream().map(Object::toString).toList();
    }

    private static String[] withEmptyConfig(List<String> args) throws IOException {
        List<String> out = new ArrayList<>(args);
        int config = out.indexOf("--config");
        if (config >= 0) {
            Path empty = Files.createTempFile("job", ".properties");
            empty.toFile().deleteOnExit();
            out.set(config + 1, empty.toString());
        }
        return out.toArray(String[]::new);
    }
}
