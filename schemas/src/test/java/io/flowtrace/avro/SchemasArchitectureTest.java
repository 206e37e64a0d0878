package io.flowtrace.avro;

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
 * The schemas module's packages (the generated contract types and their mapping from core) form no
 * cycle: the mapping reads the contract, the contract never the mapping (docs/architecture.md).
 */
class SchemasArchitectureTest {
    private static final JavaClasses SCHEMAS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.avro");

    @Test
    void schemasPackagesFormNoCycle() {
        slices().matching("io.flowtrace.(**)").should().beFreeOfCycles().check(SCHEMAS);
    }

    @Test
    void theCycleRuleSeesEveryPackage() {
        // an empty import (wrong package, classes not on the path) would let the rule above pass on nothing
        Set<String> packages = SCHEMAS.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertThat(packages).containsExactlyInAnyOrder("io.flowtrace.avro", "io.flowtrace.avro.mapping");
    }
}
