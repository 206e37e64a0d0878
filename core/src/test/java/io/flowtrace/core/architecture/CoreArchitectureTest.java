package io.flowtrace.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Core's layering, checked on its compiled classes (ArchUnit) instead of by convention: the
 * domain stays plain Java, and its packages (pcap, net, tcp, flow, report, analysis, conntrack,
 * openvpn) depend on each other in one direction only (docs/architecture.md).
 */
class CoreArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.flowtrace.core");

    @Test
    void coreUsesNoFlinkKafkaOrAvro() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink..", "org.apache.kafka..", "org.apache.avro..", "io.flowtrace.avro..")
                .because("analysis logic is plain Java, unit-tested without a runtime; jobs/ adapts it to Flink")
                .check(CORE);
    }

    @Test
    void corePackagesFormNoCycle() {
        slices().matching("io.flowtrace.core.(*)..").should().beFreeOfCycles().check(CORE);
    }

    @Test
    void theRuleSeesCoreAtAll() {
        // an empty import (wrong package, classes not on the path) would make every rule above pass
        org.assertj.core.api.Assertions.assertThat(CORE.containPackage("io.flowtrace.core.tcp"))
                .isTrue();
        org.assertj.core.api.Assertions.assertThat(CORE.size()).isGreaterThan(100);
    }
}
