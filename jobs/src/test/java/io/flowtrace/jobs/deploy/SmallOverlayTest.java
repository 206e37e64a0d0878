package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * deploy/k8s-small on one 2-core node: the CPU and memory requests of every pod it starts (one node, so
 * one agent pod), plus the single Kafka broker and entity operator of deploy/strimzi/kafka-small.yaml,
 * summed and checked against what a 2-core, 8 GiB node leaves after Kubernetes' own pods and the two
 * operators. The FlinkDeployment's pods are counted as the operator makes them: one JobManager per
 * replica, ceil(parallelism / slots) TaskManagers, each requesting {@code resource.cpu} and
 * {@code resource.memory} (Flink's "m" = MiB).
 */
class SmallOverlayTest {
    /** A 2-core node with 8 GiB. */
    private static final long NODE_MILLICPU = 2000;

    private static final long NODE_MIB = 8 * 1024;
    /**
     * What is not ours, estimated and written down here: kubelet and system reservations plus
     * kube-system's pods (CoreDNS 100m/70Mi, a CNI agent, kube-proxy, metrics-server 100m/200Mi):
     * 400m and 1.5 GiB; the Strimzi cluster operator (its install requests 200m/384Mi) and the Flink
     * Kubernetes Operator (≈ 100m/512Mi with its webhook): 300m and 1 GiB.
     */
    private static final long RESERVED_MILLICPU = 400 + 300;

    private static final long RESERVED_MIB = 1536 + 1024;

    @Test
    void theSmallOverlayFitsOneTwoCoreNode() {
        List<Map<String, Object>> objects = new ArrayList<>(Kustomize.render(RepoFiles.path("deploy/k8s-small")));
        objects.addAll(Yaml.documents(RepoFiles.path("deploy/strimzi/kafka-small.yaml")));
        long[] sum = new long[2];
        List<String> counted = new ArrayList<>();
        for (Map<String, Object> o : objects) {
            String kind = Yaml.string(o, "kind");
            String name = Yaml.string(o, "metadata.name");
            switch (kind) {
                case "FlinkDeployment" -> {
                    int parallelism = ((Number) Yaml.at(o, "spec.job.parallelism")).intValue();
                    int slots = Integer.parseInt(
                            String.valueOf(Yaml.map(Yaml.at(o, "spec.flinkConfiguration"), "flinkConfiguration")
                                    .get("taskmanager.numberOfTaskSlots")));
                    int taskManagers = (parallelism + slots - 1) / slots;
                    int jobManagers = ((Number) Yaml.at(o, "spec.jobManager.replicas")).intValue();
                    add(sum, Yaml.map(Yaml.at(o, "spec.jobManager.resource"), "jm"), jobManagers, true);
                    add(sum, Yaml.map(Yaml.at(o, "spec.taskManager.resource"), "tm"), taskManagers, true);
                    counted.add(name + ": " + jobManagers + " JobManager, " + taskManagers + " TaskManager");
                }
                case "DaemonSet", "Deployment" -> {
                    int replicas = o.get("spec") != null && Yaml.at(o, "spec.replicas") != null
                            ? ((Number) Yaml.at(o, "spec.replicas")).intValue()
                            : 1;
                    containers(sum, Yaml.at(o, "spec.template.spec.containers"), replicas, name);
                    counted.add(kind + "/" + name);
                }
                case "CronJob" -> {
                    containers(sum, Yaml.at(o, "spec.jobTemplate.spec.template.spec.containers"), 1, name);
                    counted.add(kind + "/" + name);
                }
                case "KafkaNodePool" -> {
                    int replicas = ((Number) Yaml.at(o, "spec.replicas")).intValue();
                    assertThat(replicas).as("one broker on one node").isEqualTo(1);
                    add(sum, Yaml.map(Yaml.at(o, "spec.resources.requests"), name), replicas, false);
                    counted.add(kind + "/" + name);
                }
                case "Kafka" -> {
                    for (String operator : List.of("topicOperator", "userOperator")) {
                        add(
                                sum,
                                Yaml.map(
                                        Yaml.at(o, "spec.entityOperator." + operator + ".resources.requests"),
                                        operator),
                                1,
                                false);
                    }
                    counted.add("entity operator of " + name);
                }
                default -> {}
            }
        }
        assertThat(counted)
                .contains(
                        "flowtrace: 1 JobManager, 1 TaskManager",
                        "DaemonSet/flowtrace-agent",
                        "Deployment/flowtrace-grafana",
                        "CronJob/flowtrace-retention",
                        "KafkaNodePool/combined",
                        "entity operator of flowtrace");
        assertThat(sum[0])
                .as("millicores requested (counted: %s)", counted)
                .isLessThanOrEqualTo(NODE_MILLICPU - RESERVED_MILLICPU);
        assertThat(sum[1]).as("MiB requested (counted: %s)", counted).isLessThanOrEqualTo(NODE_MIB - RESERVED_MIB);
    }

    /** The small overlay keeps the rules of the full one: topics readable at the job's parallelism, one replica per broker. */
    @Test
    void theSmallOverlaysTopicsMatchItsParallelismAndSingleBroker() {
        List<Map<String, Object>> objects = Kustomize.render(RepoFiles.path("deploy/k8s-small"));
        Map<String, Object> fd = objects.stream()
                .filter(o -> "FlinkDeployment".equals(o.get("kind")))
                .findFirst()
                .orElseThrow();
        int parallelism = ((Number) Yaml.at(fd, "spec.job.parallelism")).intValue();
        int topics = 0;
        for (Map<String, Object> o : objects) {
            if (!"KafkaTopic".equals(o.get("kind"))) {
                continue;
            }
            topics++;
            assertThat(((Number) Yaml.at(o, "spec.replicas")).intValue()).isEqualTo(1);
            assertThat(Yaml.map(Yaml.at(o, "spec.config"), "config").get("min.insync.replicas"))
                    .isEqualTo("1");
            String name = Yaml.string(o, "metadata.name");
            if (name.equals("flowtrace.packets")) {
                assertThat(((Number) Yaml.at(o, "spec.partitions")).intValue()).isEqualTo(parallelism);
            }
        }
        assertThat(topics).isEqualTo(8);
    }

    private static void containers(long[] sum, Object containers, int replicas, String owner) {
        for (Object c : Yaml.list(containers, "containers of " + owner)) {
            Map<String, Object> container = Yaml.map(c, "container");
            Object requests = Yaml.at(container, "resources.requests");
            assertThat(requests)
                    .as("requests of container %s of %s", container.get("name"), owner)
                    .isNotNull();
            add(sum, Yaml.map(requests, "requests"), replicas, false);
        }
    }

    private static void add(long[] sum, Map<String, Object> requests, int times, boolean flinkMemory) {
        sum[0] += times * millicores(String.valueOf(requests.get("cpu")));
        String memory = String.valueOf(requests.get("memory"));
        sum[1] += times * (flinkMemory ? flinkMib(memory) : kubernetesMib(memory));
    }

    static long millicores(String cpu) {
        return cpu.endsWith("m")
                ? Long.parseLong(cpu.substring(0, cpu.length() - 1))
                : new BigDecimal(cpu).multiply(BigDecimal.valueOf(1000)).longValueExact();
    }

    static long kubernetesMib(String quantity) {
        if (quantity.endsWith("Gi")) {
            return Long.parseLong(quantity.substring(0, quantity.length() - 2)) * 1024;
        }
        assertThat(quantity).as("memory quantity").endsWith("Mi");
        return Long.parseLong(quantity.substring(0, quantity.length() - 2));
    }

    /** Flink's memory sizes (MemorySize): "m" is mebibytes, "g" gibibytes. */
    static long flinkMib(String size) {
        if (size.endsWith("g")) {
            return Long.parseLong(size.substring(0, size.length() - 1)) * 1024;
        }
        assertThat(size).as("Flink memory size").endsWith("m");
        return Long.parseLong(size.substring(0, size.length() - 1));
    }
}
