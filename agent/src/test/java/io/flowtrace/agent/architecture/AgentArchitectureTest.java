package io.flowtrace.agent.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The agent module's packages form no cycle (docs/architecture.md): each concept reads only the ones below it. */
class AgentArchitectureTest {
    private static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.agent");

    @Test
    void agentPackagesFormNoCycle() {
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(AGENT);
    }

    @Test
    void theCycleRuleSeesEveryPackage() {
        // an empty import (wrong package, classes not on the path) would let the rule above pass on nothing
        Set<String> packages = AGENT.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertThat(packages)
                .containsExactlyInAnyOrder(
                        "io.flowtrace.agent.batch",
                        "io.flowtrace.agent.conntrack",
                        "io.flowtrace.agent.kafka",
                        "io.flowtrace.agent.metrics",
                        "io.flowtrace.agent.os",
                        "io.flowtrace.agent.packets",
                        "io.flowtrace.agent.spool");
    }
}
