package io.flowtrace.demo;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The demo's packages form no cycle (its HTML report reads the demo's captures, database and
 * summary, so it lives in the demo's package rather than in a package of its own that points back).
 */
class DemoArchitectureTest {
    private static final JavaClasses DEMO = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.demo");

    @Test
    void demoPackagesFormNoCycle() {
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(DEMO);
    }

    @Test
    void theRuleSeesTheDemo() {
        // an empty import would let the rule above pass on nothing
        assertThat(DEMO.contain("io.flowtrace.demo.HtmlReport")).isTrue();
        assertThat(DEMO.contain("io.flowtrace.demo.Demo")).isTrue();
    }
}
