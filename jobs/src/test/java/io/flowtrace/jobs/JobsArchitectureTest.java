package io.flowtrace.jobs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The jobs module's layering rules, checked on the compiled classes (ArchUnit): pure logic stays
 * out of Flink, where Flink is on the class path and an import would compile.
 */
class JobsArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.core", "io.flowtrace.jobs");

    @Test
    void theJoinRulesAndCoreUseNoFlink() {
        assertThat(MAIN.containPackage("io.flowtrace.jobs.join"))
                .as("join classes found")
                .isTrue();
        // ConntrackJoinFunction is the join's one Flink adapter (state and timers around ConntrackJoin)
        noClasses()
                .that()
                .resideInAnyPackage("io.flowtrace.core..", "io.flowtrace.jobs.join..")
                .and()
                .doNotHaveSimpleName("ConntrackJoinFunction")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.flink..")
                .because("join rules and analysis are plain Java, unit-tested without a MiniCluster")
                .check(MAIN);
    }
}
