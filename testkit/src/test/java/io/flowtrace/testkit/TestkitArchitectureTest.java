package io.flowtrace.testkit;

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
 * The testkit's packages form no cycle (docs/architecture.md): the in-JVM services of the tests and
 * the demo, and the standalone multi-process cluster ({@code cluster}) built on them.
 */
class TestkitArchitectureTest {
    private static final JavaClasses TESTKIT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.testkit");

    @Test
    void testkitPackagesFormNoCycle() {
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(TESTKIT);
    }

    @Test
    void theCycleRuleSeesEveryPackage() {
        // an empty import (wrong package, classes not on the path) would let the rule above pass on nothing
        Set<String> packages = TESTKIT.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertThat(packages).containsExactlyInAnyOrder("io.flowtrace.testkit", "io.flowtrace.testkit.cluster");
    }
}
