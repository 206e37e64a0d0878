package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every released version of every contract (src/test/resources/released/NAME/vN.avsc) must stay
 * readable by the current schema (backward: a new job reads old agents' data) and able to read
 * data written with the current schema (forward: an old job reads new agents' data, given the
 * writer schema). A change that breaks either direction fails the build here.
 */
class SchemaEvolutionTest {

    static Stream<Arguments> releasedVersions() {
        List<Arguments> cases = new ArrayList<>();
        for (Class<? extends SpecificRecord> type : Contracts.ALL) {
            for (Path released : releasedFiles(type.getSimpleName())) {
                cases.add(Arguments.of(type.getSimpleName() + "/" + released.getFileName(), type, released));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "current reads {0}")
    @MethodSource("releasedVersions")
    void currentSchemaReadsDataWrittenWithReleasedVersion(
            String label, Class<? extends SpecificRecord> type, Path released) {
        SchemaPairCompatibility result =
                SchemaCompatibility.checkReaderWriterCompatibility(Contracts.currentSchema(type), parse(released));

        assertThat(result.getType()).as(describe(result)).isEqualTo(SchemaCompatibilityType.COMPATIBLE);
    }

    @ParameterizedTest(name = "{0} reads current")
    @MethodSource("releasedVersions")
    void releasedVersionReadsDataWrittenWithCurrentSchema(
            String label, Class<? extends SpecificRecord> type, Path released) {
        SchemaPairCompatibility result =
                SchemaCompatibility.checkReaderWriterCompatibility(parse(released), Contracts.currentSchema(type));

        assertThat(result.getType()).as(describe(result)).isEqualTo(SchemaCompatibilityType.COMPATIBLE);
    }

    @Test
    void everyContractHasAReleasedFirstVersionAndNothingElseIsReleased() throws IOException {
        List<String> contracts =
                Contracts.ALL.stream().map(Class::getSimpleName).sorted().toList();
        List<String> releasedDirs;
        try (Stream<Path> dirs = Files.list(releasedRoot())) {
            releasedDirs = dirs.map(p -> p.getFileName().toString()).sorted().toList();
        }

        assertThat(releasedDirs).isEqualTo(contracts);
        for (String name : contracts) {
            assertThat(releasedRoot().resolve(name).resolve("v1.avsc")).exists();
        }
    }

    @Test
    void releasedSchemasAreSelfContained() {
        // A released copy must parse on its own: it is what a reader gets from a schema store.
        for (Class<? extends SpecificRecord> type : Contracts.ALL) {
            for (Path released : releasedFiles(type.getSimpleName())) {
                assertThat(parse(released).getFullName()).isEqualTo(type.getName());
            }
        }
    }

    @Test
    void checkRejectsAFieldAddedWithoutDefault() {
        // The check has teeth: the classic breaking change is caught in the backward direction.
        Schema current = Contracts.currentSchema(PacketEvent.class);
        Schema broken = new Schema.Parser()
                .parse(current.toString()
                        .replaceFirst("\"fields\":\\[", "\"fields\":[{\"name\":\"flow_label\",\"type\":\"int\"},"));

        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(broken, current)
                        .getType())
                .isEqualTo(SchemaCompatibilityType.INCOMPATIBLE);
    }

    @Test
    void checkRejectsANewEnumSymbolOnlyWhenTheReaderHasNoEnumDefault() {
        // Why every enum has UNKNOWN as its default: an old reader maps a new symbol to it.
        Schema current = Contracts.currentSchema(TcpEvent.class);
        Schema newer = new Schema.Parser()
                .parse(current.toString().replace("\"SYN_RETRANSMIT\"]", "\"SYN_RETRANSMIT\",\"PERSIST_TIMER\"]"));
        Schema currentWithoutEnumDefault = new Schema.Parser()
                .parse(current.toString()
                        .replace("\"SYN_RETRANSMIT\"],\"default\":\"UNKNOWN\"", "\"SYN_RETRANSMIT\"]"));

        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, newer)
                        .getType())
                .isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(currentWithoutEnumDefault, newer)
                        .getType())
                .isEqualTo(SchemaCompatibilityType.INCOMPATIBLE);
    }

    private static String describe(SchemaPairCompatibility result) {
        return result.getResult().getIncompatibilities().toString();
    }

    private static Schema parse(Path file) {
        try {
            return new Schema.Parser().parse(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read released schema " + file, e);
        }
    }

    private static List<Path> releasedFiles(String name) {
        Path dir = releasedRoot().resolve(name);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches("v\\d+\\.avsc"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path releasedRoot() {
        try {
            return Path.of(SchemaEvolutionTest.class.getResource("/released").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
