package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * No top-level class of core shares its simple name with one of the contract's (the Avro-generated
 * records and enums, and this package's own classes): code that uses both, as the mappings and the
 * job do, then needs no fully qualified names. The Avro side cannot give way: a record's full name is
 * part of its single-object fingerprint (docs/schemas.md), so core's class takes another name.
 */
class ClassNameCollisionTest {

    @Test
    void noCoreClassIsNamedLikeAContractClass() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.flowtrace.core", "io.flowtrace.avro");
        Set<String> core = topLevelNames(classes, "io.flowtrace.core");
        Set<String> avro = topLevelNames(classes, "io.flowtrace.avro");
        assertThat(core)
                .as("core classes found")
                .contains("TcpFlowAnalyzer", "FlowKey", "VantagePoint")
                .hasSizeGreaterThan(50);
        assertThat(avro).as("contract classes found").contains("FlowRecord", "TcpEvent", "Vantage");
        Set<String> shared = new TreeSet<>(core);
        shared.retainAll(avro);
        assertThat(shared)
                .as("simple names in both io.flowtrace.core and io.flowtrace.avro")
                .isEmpty();
    }

    private static Set<String> topLevelNames(JavaClasses classes, String rootPackage) {
        Set<String> names = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.isTopLevelClass()
                    && (c.getPackageName().equals(rootPackage)
                            || c.getPackageName().startsWith(rootPackage + "."))) {
                names.add(c.getSimpleName());
            }
        }
        return names;
    }
}
