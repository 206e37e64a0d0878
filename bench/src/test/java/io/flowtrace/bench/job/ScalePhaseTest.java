package io.flowtrace.bench.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScalePhaseTest {
    @Test
    void takesOnlyTheRocksDbEntriesOfTheFlinkDeployment() {
        String yaml = """
                apiVersion: v1
                kind: ConfigMap
                data:
                  state.backend.rocksdb.use-bloom-filter: "false"
                ---
                kind: FlinkDeployment
                spec:
                  flinkConfiguration:
                    state.backend.type: rocksdb
                    execution.checkpointing.incremental: "true"
                    state.backend.rocksdb.use-bloom-filter: "true"
                    state.backend.rocksdb.block.blocksize: 16kb
                """;
        assertThat(ScalePhase.shippedRocksDbSettings(yaml))
                .isEqualTo(Map.of(
                        "state.backend.rocksdb.use-bloom-filter", "true",
                        "state.backend.rocksdb.block.blocksize", "16kb"));
    }

    @Test
    void theProbeRunsTheShippedPartitionedIndexAndBloomFilter() throws Exception {
        // surefire runs in bench/; the probe in the repository root (bench/job-bench.sh)
        String shipped = Files.readString(Path.of("..").resolve(ScalePhase.SHIPPED));
        assertThat(ScalePhase.shippedRocksDbSettings(shipped))
                .containsEntry("state.backend.rocksdb.memory.partitioned-index-filters", "true")
                .containsEntry("state.backend.rocksdb.use-bloom-filter", "true");
    }

    @Test
    void scaleFlinkOptionsAreNameValuePairs() {
        assertThat(ScalePhase.flinkOptions("a.b=1, c = x=y ,,")).isEqualTo(Map.of("a.b", "1", "c", "x=y"));
    }
}
