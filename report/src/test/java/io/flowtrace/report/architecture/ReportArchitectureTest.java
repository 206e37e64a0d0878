package io.flowtrace.report.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The report module's place in the house (docs/architecture.md): between core and every output, so
 * it knows the analysis and no output technology, and its packages form no cycle.
 */
class ReportArchitectureTest {
    private static final JavaClasses REPORT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.report");

    @Test
    void reportUsesNoFlinkKafkaOrAvro() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink..",
                        "org.apache.kafka..",
                        "org.apache.avro..",
                        "io.flowtrace.avro..",
                        "io.flowtrace.jobs..",
                        "io.flowtrace.cli..",
                        "java.sql..")
                .because("the flow record is read by the command line without Kafka and by the job; outputs adapt it")
                .check(REPORT);
    }

    @Test
    void reportPackagesFormNoCycle() {
        // one package today (nothing to slice yet); the rule holds the line for the packages to come
        slices().matching("io.flowtrace.report.(*)..")
                .should()
                .beFreeOfCycles()
                .allowEmptyShould(true)
                .check(REPORT);
    }

    @Test
    void theRuleSeesTheModule() {
        assertThat(REPORT.contain("io.flowtrace.report.FlowFields")).isTrue();
    }
}
