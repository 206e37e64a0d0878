package io.flowtrace.bench;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The benchmarks' packages form no cycle: the job benchmark (bench.job) uses the input generators, never the reverse. */
class BenchArchitectureTest {
    private static final JavaClasses BENCH = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.bench");

    @Test
    void benchPackagesFormNoCycle() {
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(BENCH);
    }

    @Test
    void theRuleSeesBothPackages() {
        // an empty import would let the rule above pass on nothing
        assertThat(BENCH.contain("io.flowtrace.bench.Packets")).isTrue();
        assertThat(BENCH.contain("io.flowtrace.bench.job.JobBench")).isTrue();
    }
}
