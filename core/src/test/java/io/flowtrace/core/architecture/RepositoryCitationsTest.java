package io.flowtrace.core.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository stands on its own: code, schemas, build files, scripts and deploy files cite only
 * documents that are in it. Nothing may send a reader to the design notes, style guide, lab notes or
 * issue tracker the project started from (they are not in the repository; what still matters of them
 * is in docs/), and every {@code docs/*.md} a file names must exist. The frozen copies of released
 * schemas (src/test/resources/released) keep their old text and are not read.
 */
class RepositoryCitationsTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Set<String> TOP_LEVEL = Set.of("scripts", "deploy", "docker", "bench", ".ci");
    private static final Pattern OUTSIDE = Pattern.compile(
            "DESIGN\\.md|DESIGN §|STYLE\\.md|LAB-NOTES|BUILD-NOTES|\\bseeds?/|\\bseed \\d{3}\\b|\\bissue #?\\d+");
    private static final Pattern DOC = Pattern.compile("\\bdocs/([A-Za-z0-9_.-]+\\.md)");

    @Test
    void citesNothingOutsideTheRepository() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path file : sources()) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = OUTSIDE.matcher(lines.get(i));
                if (m.find()) {
                    found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        assertThat(found)
                .as("citations of documents that are not in the repository")
                .isEmpty();
    }

    @Test
    void everyCitedDocExists() throws IOException {
        List<String> missing = new ArrayList<>();
        int cited = 0;
        for (Path file : sources()) {
            String text = Files.readString(file, StandardCharsets.ISO_8859_1);
            Matcher m = DOC.matcher(text);
            while (m.find()) {
                cited++;
                if (!Files.isRegularFile(ROOT.resolve("docs").resolve(m.group(1)))) {
                    missing.add(ROOT.relativize(file) + " cites docs/" + m.group(1));
                }
            }
        }
        assertThat(cited)
                .as("docs/*.md citations found (the walk reached the sources)")
                .isGreaterThan(100);
        assertThat(missing).isEmpty();
    }

    /** A repository file named by its path: a module's source or resource, a deploy file, a script. */
    private static final Pattern REPO_FILE = Pattern.compile(
            "\\b((?:core|report|schemas|jobs|agent|cli|demo|bench|testkit|cluster)/src/[A-Za-z0-9_/.-]+\\.(?:java|avsc|sql)"
                    + "|deploy/[A-Za-z0-9_/.-]+\\.(?:json|yaml|yml|sql|list)|scripts/[A-Za-z0-9_/.-]+\\.(?:sh|py)"
                    + "|docker/[A-Za-z0-9_/.-]+\\.(?:yaml|yml|Dockerfile))");
    /** Named on purpose though not here: a placeholder, and a file of the upstream project deploy/schemas cites. */
    private static final Set<String> NOT_OURS =
            Set.of("deploy/schemas/kubernetes-1.NN/definitions.json", "scripts/constants.py");

    @Test
    void everyRepositoryFileNamedInDocsAndDeployFilesExists() throws IOException {
        List<Path> files = sourcesAndDocs();
        List<String> missing = new ArrayList<>();
        int named = 0;
        for (Path file : files) {
            Matcher m = REPO_FILE.matcher(Files.readString(file, StandardCharsets.ISO_8859_1));
            while (m.find()) {
                named++;
                if (!NOT_OURS.contains(m.group(1)) && !Files.exists(ROOT.resolve(m.group(1)))) {
                    missing.add(ROOT.relativize(file) + " names " + m.group(1));
                }
            }
        }
        assertThat(named)
                .as("repository paths found (the walk reached the docs)")
                .isGreaterThan(20);
        assertThat(missing).isEmpty();
    }

    /** A Java file named by its name ("FlowTracker.java"), anywhere in a comment or a doc; not a glob ("*Test.java"). */
    private static final Pattern JAVA_FILE = Pattern.compile("(?<!\\*)\\b([A-Z][A-Za-z0-9_]*\\.java)\\b");

    @Test
    void everyJavaFileNamedInSourcesDocsAndDeployFilesExists() throws IOException {
        Set<String> present = new HashSet<>();
        try (Stream<Path> walk = Files.walk(ROOT)) {
            walk.filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
                    .forEach(f -> present.add(f.getFileName().toString()));
        }
        List<String> missing = new ArrayList<>();
        int named = 0;
        for (Path file : sourcesAndDocs()) {
            Matcher m = JAVA_FILE.matcher(Files.readString(file, StandardCharsets.ISO_8859_1));
            while (m.find()) {
                named++;
                if (!present.contains(m.group(1))) {
                    missing.add(ROOT.relativize(file) + " names " + m.group(1));
                }
            }
        }
        assertThat(named).as("Java files named (the walk reached the sources)").isGreaterThan(20);
        assertThat(missing).isEmpty();
    }

    /** The type a {@link} or {@linkplain} of a comment points at: its first segment, or a qualified name. */
    private static final Pattern LINK = Pattern.compile("\\{@link(?:plain)?\\s+([A-Za-z_][A-Za-z0-9_.]*)");
    /** A type declared in a Java source, or a record or enum declared in an Avro schema (generated into a class). */
    private static final Pattern DECLARED = Pattern.compile(
            "\\b(?:class|interface|enum|record)\\s+([A-Z][A-Za-z0-9_]*)|\"name\"\\s*:\\s*\"([A-Z][A-Za-z0-9_]*)\"");

    private static final Pattern IMPORT =
            Pattern.compile("(?m)^import\\s+(?:static\\s+)?[\\w.]*?\\.([A-Za-z0-9_]+)\\s*;");

    /**
     * javac does not check a comment's {@code {@link}}: a type renamed or removed leaves it pointing at
     * nothing. Each must name a type declared in the repository (a Java source or an Avro schema), one
     * the file imports, one of java.lang, or, qualified, a type of io.flowtrace that exists (other
     * qualified names are the dependencies').
     */
    @Test
    void everyTypeALinkInAMainSourceNamesExists() throws IOException {
        Set<String> declared = new HashSet<>();
        List<Path> main = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(ROOT)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                String path = f.toString();
                if (path.contains("/target/") || path.contains("/.git/")) {
                    continue;
                }
                if (path.endsWith(".java") || (path.endsWith(".avsc") && path.contains("/src/main/"))) {
                    Matcher d = DECLARED.matcher(Files.readString(f, StandardCharsets.ISO_8859_1));
                    while (d.find()) {
                        declared.add(d.group(1) != null ? d.group(1) : d.group(2));
                    }
                }
                if (path.endsWith(".java") && path.contains("/src/main/")) {
                    main.add(f);
                }
            }
        }
        List<String> dangling = new ArrayList<>();
        int links = 0;
        for (Path file : main) {
            String text = Files.readString(file, StandardCharsets.ISO_8859_1);
            Set<String> imported = new HashSet<>();
            Matcher i = IMPORT.matcher(text);
            while (i.find()) {
                imported.add(i.group(1));
            }
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                links++;
                if (!resolves(m.group(1), declared, imported)) {
                    dangling.add(ROOT.relativize(file) + " links " + m.group(1));
                }
            }
        }
        assertThat(links).as("links found (the walk reached the sources)").isGreaterThan(100);
        assertThat(dangling).isEmpty();
    }

    /**
     * A class renamed or removed leaves its old name in comments and docs: every type name cited as
     * code ({@code {@code Name}}, backticks, {@code Name.member}) in main sources, docs, deploy files,
     * scripts and build files must still name one of ours, a library type or an upstream schema's
     * word ({@link CitedTypeNames} has the rule). Not read: the vendored upstream schemas
     * (deploy/schemas) and docs/BENCHMARKS.md, a dated log whose profiles name the code as it was
     * when each run was measured.
     */
    @Test
    void everyTypeNameCitedAsCodeInCommentsAndDocsExists() throws IOException {
        CitedTypeNames names = CitedTypeNames.of(ROOT);
        Set<String> stale = new java.util.LinkedHashSet<>();
        for (Path file : sourcesAndDocs()) {
            String path = ROOT.relativize(file).toString().replace('\\', '/');
            if (!path.startsWith("deploy/schemas/") && !path.equals("docs/BENCHMARKS.md")) {
                stale.addAll(names.stale(ROOT, file));
            }
        }
        assertThat(names.checked())
                .as("type names cited as code (the walk reached the comments and docs)")
                .isGreaterThan(1000);
        assertThat(stale).isEmpty();
    }

    /** The rule finds what it is for: a made-up name, a member its type lacks; and lets real ones pass. */
    @Test
    void aMadeUpTypeNameOrMemberIsFoundAndRealOnesPass() throws IOException {
        CitedTypeNames names = CitedTypeNames.of(ROOT);
        String java = "/**\n * Reads {@code FlowTrackerOfOld}, then FlowTracker.noSuchMethod();\n"
                + " * {@code FlowTracker}, {@code FlowLifecycle.State} and {@code PostgreSQL} are fine. */\nclass X {}\n";
        assertThat(names.staleInJava("X.java", java))
                .containsExactlyInAnyOrder(
                        "X.java:2: FlowTrackerOfOld (no such type)",
                        "X.java:2: FlowTracker.noSuchMethod (FlowTracker has no noSuchMethod)");
        String doc = "# A doc\n\nIt names `DetectorThatNeverWas` and `io.flowtrace.core.flow.GoneTracker`;\n"
                + "real: `FlowState.clockNanos` (a field of its supertype), `FlowRecord.getEncoder` (generated),\n"
                + "`KafkaSource`, `KafkaNodePool`, `NullPointerException`, `-XX:StartFlightRecording`,\n"
                + "`SuccessExitStatus=143`, `FlowRecord.avsc`, `*ArchitectureTest`, OpenVPN and JavaScript in prose.\n";
        assertThat(names.staleInDoc("doc.md", doc))
                .containsExactlyInAnyOrder(
                        "doc.md:3: DetectorThatNeverWas (no such type)",
                        "doc.md:3: io.flowtrace.core.flow.GoneTracker (no such type)");
        String yaml = "# written by FlowSummaryColumns.noSuchColumn\nkind: Deployment\n";
        assertThat(names.staleInComments("x.yaml", yaml, CitedTypeNames.LINE_COMMENT))
                .containsExactly("x.yaml:1: FlowSummaryColumns.noSuchColumn (FlowSummaryColumns has no noSuchColumn)");
    }

    private static boolean resolves(String ref, Set<String> declared, Set<String> imported) {
        String[] parts = ref.split("\\.");
        if (Character.isLowerCase(parts[0].charAt(0))) {
            if (!ref.startsWith("io.flowtrace.")) {
                return true;
            }
            for (String part : parts) {
                if (Character.isUpperCase(part.charAt(0))) {
                    return declared.contains(part);
                }
            }
            return false;
        }
        return declared.contains(parts[0]) || imported.contains(parts[0]) || CitedTypeNames.inJavaLang(parts[0]);
    }

    /** {@link #sources()}, the docs, deploy's notes and README.md. */
    private static List<Path> sourcesAndDocs() throws IOException {
        List<Path> files = new ArrayList<>(sources());
        for (String dir : List.of("docs", "deploy")) {
            try (Stream<Path> docs = Files.walk(ROOT.resolve(dir))) {
                docs.filter(f -> f.toString().endsWith(".md")).forEach(files::add);
            }
        }
        files.add(ROOT.resolve("README.md"));
        return files;
    }

    /** Main sources and Avro schemas of every module, every pom.xml, and the scripts, bench, deploy and docker trees. */
    private static List<Path> sources() throws IOException {
        assertThat(ROOT.resolve("pom.xml")).as("the repository root").isRegularFile();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(ROOT)) {
            walk.filter(Files::isRegularFile)
                    .filter(RepositoryCitationsTest::read)
                    .forEach(files::add);
        }
        return files;
    }

    private static boolean read(Path file) {
        Path rel = ROOT.relativize(file);
        String path = rel.toString().replace('\\', '/');
        if (path.contains("/target/") || path.startsWith("target/") || path.startsWith(".git")) {
            return false;
        }
        String name = file.getFileName().toString();
        if (name.equals("pom.xml")) {
            return true;
        }
        boolean text = name.endsWith(".java")
                || name.endsWith(".avsc")
                || name.endsWith(".sh")
                || name.endsWith(".sql")
                || name.endsWith(".yaml")
                || name.endsWith(".yml")
                || name.endsWith(".py")
                || name.endsWith("Dockerfile");
        return text
                && (path.contains("/src/main/")
                        || TOP_LEVEL.contains(rel.getName(0).toString()));
    }
}
