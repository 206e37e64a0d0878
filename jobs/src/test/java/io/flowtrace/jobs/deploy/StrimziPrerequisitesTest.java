package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The full deployment's Kafka prerequisites against what the job as deployed really uses: the
 * FlinkDeployment's own arguments (deploy/k8s/40-flowtrace-job.yaml) read by {@link JobConfig}, so a
 * topic, consumer group or transactional-id prefix changed in the job or its manifest without its
 * KafkaUser ACL (deploy/strimzi/users.yaml) or its KafkaTopic (deploy/k8s/10-kafka-topics.yaml) fails
 * here and not at first use with a TopicAuthorizationException; and every topic's replication fits the
 * node pool of deploy/strimzi/kafka.yaml (with fewer brokers than replicas Strimzi leaves a topic
 * NotReady; with min.insync.replicas equal to replicas one broker's restart stops every producer).
 */
class StrimziPrerequisitesTest {

    @Test
    void theJobsKafkaUserMayDoExactlyWhatTheDeployedJobDoes() {
        JobConfig job = deployedJob();
        Map<String, Set<String>> acls = acls("flowtrace-job");

        Set<String> inputs = new LinkedHashSet<>(List.of(job.get(JobOption.PACKETS_TOPIC)));
        if (job.getBoolean(JobOption.CONNTRACK_INPUT)) {
            inputs.add(job.get(JobOption.CONNTRACK_TOPIC));
        }
        for (String topic : inputs) {
            assertThat(acls.get("topic:literal:" + topic))
                    .as("flowtrace-job on input topic %s", topic)
                    .contains("Read", "Describe");
        }
        assertThat(acls.get("group:literal:" + job.get(JobOption.GROUP_ID)))
                .as("flowtrace-job on its consumer group %s", job.get(JobOption.GROUP_ID))
                .contains("Read");

        assertThat(job.getBoolean(JobOption.KAFKA_OUTPUT))
                .as("the deployed job writes Kafka")
                .isTrue();
        for (String topic : outputTopics(job)) {
            assertThat(acls.get("topic:literal:" + topic))
                    .as("flowtrace-job on output topic %s", topic)
                    .contains("Write", "Describe");
            assertThat(acls.get("topic:literal:" + topic))
                    .as("an output topic is not readable by the job's user")
                    .doesNotContain("Read");
        }
        // exactly-once KafkaSink: transactional ids <prefix>-..., and idempotent producers
        String prefix = job.get(JobOption.TRANSACTIONAL_ID_PREFIX);
        assertThat(prefix).as("the manifest's own prefix, not the default").isNotEqualTo("flowtrace");
        assertThat(acls.get("transactionalId:prefix:" + prefix))
                .as("flowtrace-job on transactional ids starting %s", prefix)
                .contains("Write", "Describe");
        assertThat(acls.get("cluster")).contains("IdempotentWrite");
        // nothing beyond: every ACL names something the job uses
        Set<String> used = new HashSet<>();
        inputs.forEach(t -> used.add("topic:literal:" + t));
        outputTopics(job).forEach(t -> used.add("topic:literal:" + t));
        used.add("group:literal:" + job.get(JobOption.GROUP_ID));
        used.add("transactionalId:prefix:" + prefix);
        used.add("cluster");
        assertThat(acls.keySet()).as("flowtrace-job's ACL resources").isSubsetOf(used);
    }

    @Test
    void theAgentsKafkaUserWritesTheJobsInputsAndNothingElse() {
        JobConfig job = deployedJob();
        Map<String, Set<String>> acls = acls("flowtrace-agent");
        Set<String> expected = new HashSet<>(Set.of(
                "topic:literal:" + job.get(JobOption.PACKETS_TOPIC),
                "topic:literal:" + job.get(JobOption.CONNTRACK_TOPIC),
                "cluster"));
        assertThat(acls.keySet()).isEqualTo(expected);
        for (String topic : List.of(job.get(JobOption.PACKETS_TOPIC), job.get(JobOption.CONNTRACK_TOPIC))) {
            assertThat(acls.get("topic:literal:" + topic)).containsExactlyInAnyOrder("Write", "Describe");
        }
        // the DaemonSet's agents publish to their commands' default topics (no --topic argument),
        // which are the job's defaults (flowtrace.packets, flowtrace.conntrack)
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/50-agent-daemonset.yaml"))) {
            Yaml.walk(doc, node -> {
                if (node.get("args") instanceof List<?> args) {
                    List<Object> values = new ArrayList<>(args);
                    assertThat(values).as("agent arguments").doesNotContain("--topic");
                }
            });
        }
        assertThat(job.get(JobOption.PACKETS_TOPIC)).isEqualTo(JobOption.PACKETS_TOPIC.defaultValue());
        assertThat(job.get(JobOption.CONNTRACK_TOPIC)).isEqualTo(JobOption.CONNTRACK_TOPIC.defaultValue());
    }

    @Test
    void everyTopicTheJobUsesExistsAndFitsTheNodePool() {
        JobConfig job = deployedJob();
        int brokers = -1;
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/strimzi/kafka.yaml"))) {
            if ("KafkaNodePool".equals(doc.get("kind"))) {
                assertThat(Yaml.string(doc, "spec.roles")).contains("broker");
                brokers = ((Number) Yaml.at(doc, "spec.replicas")).intValue();
            }
        }
        assertThat(brokers).as("brokers of the node pool").isPositive();
        Set<String> topics = new HashSet<>();
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/10-kafka-topics.yaml"))) {
            if (!"KafkaTopic".equals(doc.get("kind"))) {
                continue;
            }
            String name = Yaml.string(doc, "metadata.name");
            topics.add(name);
            int replicas = ((Number) Yaml.at(doc, "spec.replicas")).intValue();
            int minInsync = Integer.parseInt(Yaml.map(Yaml.at(doc, "spec.config"), name + " config")
                    .get("min.insync.replicas")
                    .toString());
            assertThat(replicas)
                    .as("%s replicas against %d brokers", name, brokers)
                    .isLessThanOrEqualTo(brokers);
            assertThat(minInsync)
                    .as("%s min.insync.replicas: one broker may restart", name)
                    .isLessThan(replicas)
                    .isPositive();
        }
        List<String> used = new ArrayList<>(outputTopics(job));
        used.add(job.get(JobOption.PACKETS_TOPIC));
        used.add(job.get(JobOption.CONNTRACK_TOPIC));
        assertThat(topics).as("KafkaTopics of the full deployment").containsAll(used);
    }

    /** The FlinkDeployment's arguments without {@code --config} (a mounted Secret holding only kafka.* security). */
    private static JobConfig deployedJob() {
        List<String> args = new ArrayList<>();
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/k8s/40-flowtrace-job.yaml"))) {
            if ("FlinkDeployment".equals(doc.get("kind"))) {
                for (Object a : Yaml.list(Yaml.at(doc, "spec.job.args"), "spec.job.args")) {
                    args.add(a.toString());
                }
            }
        }
        int config = args.indexOf("--config");
        assertThat(config)
                .as("the manifest passes its Kafka security as --config")
                .isNotNegative();
        args.remove(config + 1);
        args.remove(config);
        return JobConfig.fromArgs(args.toArray(String[]::new));
    }

    /** The output topics of {@code KafkaOutputs} and, when enabled, {@code OpenVpnSinks}. */
    private static List<String> outputTopics(JobConfig job) {
        List<String> topics = new ArrayList<>();
        for (JobOption o : List.of(
                JobOption.FLOWS_TOPIC,
                JobOption.TCP_EVENTS_TOPIC,
                JobOption.SERVICE_WINDOWS_TOPIC,
                JobOption.VANTAGE_WINDOWS_TOPIC,
                JobOption.CONNTRACK_BUDGETS_TOPIC,
                JobOption.DEAD_LETTERS_TOPIC)) {
            topics.add(job.get(o));
        }
        if (job.getBoolean(JobOption.OPENVPN_KAFKA_OUTPUT)) {
            topics.add(job.get(JobOption.OPENVPN_SESSIONS_TOPIC));
            topics.add(job.get(JobOption.OPENVPN_SERVER_WINDOWS_TOPIC));
        }
        return topics;
    }

    /** A KafkaUser's ACLs: "type:patternType:name" (or "cluster") → operations. */
    private static Map<String, Set<String>> acls(String user) {
        for (Map<String, Object> doc : Yaml.documents(RepoFiles.path("deploy/strimzi/users.yaml"))) {
            if ("KafkaUser".equals(doc.get("kind")) && user.equals(Yaml.string(doc, "metadata.name"))) {
                Map<String, Set<String>> acls = new java.util.LinkedHashMap<>();
                for (Object a : Yaml.list(Yaml.at(doc, "spec.authorization.acls"), user + " acls")) {
                    Map<String, Object> acl = Yaml.map(a, user + " acl");
                    Map<String, Object> resource = Yaml.map(acl.get("resource"), user + " resource");
                    String key = "cluster".equals(resource.get("type"))
                            ? "cluster"
                            : resource.get("type") + ":" + resource.get("patternType") + ":" + resource.get("name");
                    Set<String> ops = acls.computeIfAbsent(key, k -> new LinkedHashSet<>());
                    for (Object op : Yaml.list(acl.get("operations"), user + " operations")) {
                        ops.add(op.toString());
                    }
                }
                return acls;
            }
        }
        throw new AssertionError("no KafkaUser " + user + " in deploy/strimzi/users.yaml");
    }
}
