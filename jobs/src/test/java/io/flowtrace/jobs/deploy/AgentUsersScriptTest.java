package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/strimzi/agent-users.sh, the agents' KafkaUser per node, run as a user runs it (with node names,
 * so without a cluster): each user is valid under every supported Strimzi release's KafkaUser CRD, named
 * after its node, with exactly the ACLs of the shared agent user of deploy/strimzi/users.yaml; a name
 * that cannot be a KafkaUser's is one line on stderr and exit 2, with nothing printed.
 */
class AgentUsersScriptTest {
    private record Run(int exit, String stdout, String stderr) {}

    private static Run run(Path tmp, String... nodes) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(
                List.of("bash", RepoFiles.path("deploy/strimzi/agent-users.sh").toString()));
        command.addAll(List.of(nodes));
        Path out = tmp.resolve("out.yaml");
        Path err = tmp.resolve("err.txt");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void oneValidUserPerNodeWithTheSharedAgentUsersAcls(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, "node-a", "worker-2.example");
        assertThat(r.exit()).as(r.stderr()).isZero();
        assertThat(r.stderr()).isEmpty();
        List<Map<String, Object>> users = Yaml.documents(tmp.resolve("out.yaml"));
        assertThat(users)
                .extracting(u -> Yaml.string(u, "metadata.name"))
                .containsExactly("flowtrace-agent-node-a", "flowtrace-agent-worker-2.example");
        Map<String, Object> shared = Yaml.documents(RepoFiles.path("deploy/strimzi/users.yaml")).stream()
                .filter(u -> "flowtrace-agent".equals(Yaml.string(u, "metadata.name")))
                .findFirst()
                .orElseThrow();
        for (Map<String, Object> user : users) {
            assertThat(SchemaValidation.toJson(Yaml.at(user, "spec")))
                    .isEqualTo(SchemaValidation.toJson(Yaml.at(shared, "spec")));
            assertThat(Yaml.map(Yaml.at(user, "metadata.labels"), "labels").get("strimzi.io/cluster"))
                    .isEqualTo(Yaml.map(Yaml.at(shared, "metadata.labels"), "labels")
                            .get("strimzi.io/cluster"));
            for (String release : DeploySchemasTest.STRIMZI) {
                Path crd = RepoFiles.path("deploy/schemas/" + release + "/044-Crd-kafkauser.yaml");
                SchemaValidation.CrdVersion v1 = SchemaValidation.crdVersions(crd).stream()
                        .filter(v -> v.apiVersion().equals(Yaml.string(user, "apiVersion")))
                        .findFirst()
                        .orElseThrow();
                assertThat(v1.served()).isTrue();
                assertThat(v1.validate(SchemaValidation.toJson(user)))
                        .as(release)
                        .isEmpty();
            }
        }
    }

    @Test
    void aNameThatCannotBeAKafkaUsersIsOneLineAndExit2(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, "node-a", "Node_B");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stdout()).as("nothing half printed").isEmpty();
        assertThat(r.stderr().lines()).singleElement().asString().contains("'Node_B'");
    }
}
