package io.flowtrace.cli;

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
 * The command line's layering rules, checked on the compiled classes (ArchUnit): packages by concept
 * with no cycle, and nothing of the job or the demo on the class path of {@code analyze} and the agents.
 */
class CliArchitectureTest {
    private static final JavaClasses CLI = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.cli");

    @Test
    void cliPackagesFormNoCycle() {
        // every package its own slice, io.flowtrace.cli (FlowtraceCli, the redirects) among them: it names
        // the commands, and none of them may reach back
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(CLI);
    }

    @Test
    void theCycleRuleSeesEveryPackage() {
        Set<String> packages = CLI.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        // the layout docs/architecture.md draws: an empty import would let the rule above pass on nothing
        assertThat(packages)
                .containsExactlyInAnyOrder(
                        "io.flowtrace.cli",
                        "io.flowtrace.cli.agent",
                        "io.flowtrace.cli.analyze",
                        "io.flowtrace.cli.capture",
                        "io.flowtrace.cli.console",
                        "io.flowtrace.cli.conntrack",
                        "io.flowtrace.cli.output",
                        "io.flowtrace.cli.report");
    }

    @Test
    void theCommandLineUsesNeitherTheJobNorTheDemo() {
        noClasses()
                .that()
                .resideInAPackage("io.flowtrace.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.flowtrace.jobs..", "io.flowtrace.demo..", "org.apache.flink..")
                .because(
                        "analyze and the agents run without Flink; the demo builds on the command line, not the reverse")
                .check(CLI);
    }
}
