package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The rules of docs/schemas.md that keep contracts documented and evolvable, checked on every named type. */
class SchemaConventionsTest {

    @Test
    void everyFieldHasADocAndADefault() {
        List<String> violations = new ArrayList<>();
        for (Schema record : namedTypes(Schema.Type.RECORD)) {
            for (Schema.Field field : record.getFields()) {
                if (field.doc() == null || field.doc().isBlank()) {
                    violations.add(record.getName() + "." + field.name() + " has no doc");
                }
                if (!field.hasDefaultValue()) {
                    violations.add(record.getName() + "." + field.name() + " has no default");
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void everyEnumDefaultsToUnknownSoOldReadersSurviveNewSymbols() {
        for (Schema enumeration : namedTypes(Schema.Type.ENUM)) {
            assertThat(enumeration.getEnumDefault()).as(enumeration.getName()).isEqualTo("UNKNOWN");
            assertThat(enumeration.getEnumSymbols().get(0))
                    .as(enumeration.getName())
                    .isEqualTo("UNKNOWN");
        }
    }

    @Test
    void everyNamedTypeIsDocumentedAndInTheContractNamespace() {
        for (Schema type : namedTypes(null)) {
            assertThat(type.getNamespace()).as(type.getName()).isEqualTo("io.flowtrace.avro");
            assertThat(type.getDoc()).as(type.getName()).isNotBlank();
        }
    }

    /** Named types reachable from the contracts, of one type (or all with null). */
    private static Set<Schema> namedTypes(Schema.Type only) {
        Set<Schema> seen = new HashSet<>();
        for (Class<? extends SpecificRecord> contract : Contracts.ALL) {
            collect(Contracts.currentSchema(contract), seen);
        }
        Set<Schema> result = new HashSet<>();
        for (Schema schema : seen) {
            if (only == null || schema.getType() == only) {
                result.add(schema);
            }
        }
        return result;
    }

    private static void collect(Schema schema, Set<Schema> seen) {
        switch (schema.getType()) {
            case RECORD -> {
                if (seen.add(schema)) {
                    schema.getFields().forEach(field -> collect(field.schema(), seen));
                }
            }
            case ENUM, FIXED -> seen.add(schema);
            case ARRAY -> collect(schema.getElementType(), seen);
            case MAP -> collect(schema.getValueType(), seen);
            case UNION -> schema.getTypes().forEach(branch -> collect(branch, seen));
            default -> {}
        }
    }
}
