package io.flowtrace.avro;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificRecord;

/**
 * Releases the current contracts: for every contract whose schema differs from its latest
 * released version, writes the self-contained current schema as released/NAME/v(N+1).avsc under
 * the directory given as the first argument (default schemas/src/test/resources/released).
 * Run from the repository root with {@code mvn -q -pl schemas test-compile exec:java
 * -Dexec.mainClass=io.flowtrace.avro.ReleaseSchemas -Dexec.classpathScope=test
 * -Dexec.args=$PWD/schemas/src/test/resources/released}; docs/schemas.md says when.
 */
public final class ReleaseSchemas {

    private ReleaseSchemas() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : "schemas/src/test/resources/released");
        for (Class<? extends SpecificRecord> type : Contracts.ALL) {
            Schema current = Contracts.currentSchema(type);
            Path dir = root.resolve(type.getSimpleName());
            Files.createDirectories(dir);
            int latest = latestVersion(dir);
            if (latest > 0
                    && sameSchema(
                            current,
                            new Schema.Parser()
                                    .parse(dir.resolve("v" + latest + ".avsc").toFile()))) {
                System.out.printf("%s: unchanged since v%d%n", type.getSimpleName(), latest);
                continue;
            }
            Path next = dir.resolve("v" + (latest + 1) + ".avsc");
            Files.writeString(next, current.toString(true) + "\n");
            System.out.printf("%s: released %s%n", type.getSimpleName(), next);
        }
    }

    /** Same canonical form and same docs and defaults: a doc or default change is a release too. */
    private static boolean sameSchema(Schema a, Schema b) {
        return SchemaNormalization.parsingFingerprint64(a) == SchemaNormalization.parsingFingerprint64(b)
                && a.toString().equals(b.toString());
    }

    private static int latestVersion(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.matches("v\\d+\\.avsc"))
                    .mapToInt(name -> Integer.parseInt(name.substring(1, name.length() - 5)))
                    .max()
                    .orElse(0);
        }
    }
}
