package io.flowtrace.jobs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The jobs module's layering rules, checked on the compiled classes (ArchUnit): pure logic stays
 * out of Flink, where Flink is on the class path and an import would compile.
 */
class JobsArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.core", "io.flowtrace.jobs");
    private static final JavaClasses JOBS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.jobs");

    @Test
    void jobsPackagesFormNoCycle() {
        // every package its own slice, the main class's io.flowtrace.jobs among them: it wires the
        // concepts (flow, window, conntrack, join, openvpn) and their input, output and config, and
        // none of them may reach back
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(JOBS);
    }

    @Test
    void theCycleRuleSeesEveryPackage() {
        Set<String> packages = JOBS.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        // the layout docs/architecture.md draws: an empty import would let the rule above pass on nothing
        assertThat(packages)
                .containsExactlyInAnyOrder(
                        "io.flowtrace.jobs",
                        "io.flowtrace.jobs.config",
                        "io.flowtrace.jobs.input",
                        "io.flowtrace.jobs.flow",
                        "io.flowtrace.jobs.window",
                        "io.flowtrace.jobs.conntrack",
                        "io.flowtrace.jobs.join",
                        "io.flowtrace.jobs.openvpn",
                        "io.flowtrace.jobs.output");
    }

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
