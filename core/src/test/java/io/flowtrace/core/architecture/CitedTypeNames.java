package io.flowtrace.core.architecture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The type names that comments and docs cite as code, and whether each still names something. A
 * renamed or removed class leaves {@code {@code OldName}}, {@code `OldName`} or {@code OldName.method}
 * behind: javac does not read comments and Markdown is not compiled.
 *
 * <p>What is checked (the rule; there is no list of exceptions):
 *
 * <ul>
 *   <li>A <b>type name</b> is two or more capitalised words run together ({@code FlowTracker},
 *       {@code OpenVpnSessionFunction}); a word in capitals ({@code PostgreSQL}, {@code OpenVPN},
 *       {@code JSON}) or a single word ({@code Upsert}) is not taken for one.
 *   <li>It is checked where the text marks it as code: inside {@code {@code ...}} of a Java comment,
 *       inside backticks of a comment or a doc, and anywhere as {@code Name.member} or
 *       {@code Name#member} (prose and fenced blocks included). A member that is a file extension
 *       ({@code FlowRecord.avsc}) makes no member; a name right after {@code :}, {@code +}, {@code -}
 *       or {@code =}, or right before {@code =}, is a setting ({@code -XX:StartFlightRecording},
 *       {@code SuccessExitStatus=143}), one after a dot is part of a qualified name, and one after
 *       {@code *} is a glob ({@code *ArchitectureTest}).
 *   <li>It resolves when it is declared in the repository (a Java type, main or test, or a record or
 *       enum of an Avro schema); when it is a library type the repository names with its package
 *       somewhere (an import, or a qualified name in code, a build file or a doc: name a library type
 *       in full once); when it is in java.lang; when it is a word of the upstream schemas in
 *       deploy/schemas (Kubernetes, Strimzi and Flink operator kinds and values such as
 *       {@code ReadWriteMany}); or when it is a whole string literal of the repository's Java code
 *       (a value it writes or output it expects, such as {@code "AuthFailed"}).
 *   <li>A member of one of the repository's Java types must be declared in that type's source or a
 *       supertype's (the word appears there); members of Avro-generated types and of library types are
 *       not checked.
 *   <li>A qualified name in the io.flowtrace packages must name a declared type.
 * </ul>
 */
final class CitedTypeNames {
    private static final Pattern TYPE_NAME = Pattern.compile(
            "(?<![\\w$.:+=*-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)(?:[.#]([A-Za-z_][A-Za-z0-9_]*)(?!\\*))?(?![\\w$=])");
    /** A qualified name of ours; a one-letter simple name is a placeholder ({@code io.flowtrace.cli.X}). */
    private static final Pattern OURS_QUALIFIED =
            Pattern.compile("\\bio\\.flowtrace(?:\\.[a-z][a-z0-9_]*)+\\.([A-Z][A-Za-z0-9_]+)");
    /** A type with its package: {@code org.apache.avro.io.DatumReader}. */
    private static final Pattern QUALIFIED = Pattern.compile("\\b((?:[a-z][a-z0-9_]*\\.){2,})([A-Z][A-Za-z0-9_]*)");
    /** A type with its package as a JVM message writes it: {@code org/apache/kafka/common/record/internal/CompressionType}. */
    private static final Pattern QUALIFIED_PATH =
            Pattern.compile("\\b(?:org|com|net|java|javax|jdk|sun)(?:/[a-z][a-z0-9_]*)+/([A-Z][A-Za-z0-9_]*)");

    private static final Pattern DECLARED =
            Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z][A-Za-z0-9_]*)([^{;]*)");
    private static final Pattern AVRO_NAME = Pattern.compile("\"name\"\\s*:\\s*\"([A-Z][A-Za-z0-9_]*)\"");
    private static final Pattern STRING_LITERAL = Pattern.compile("\"([A-Z][A-Za-z0-9]*)\"");
    private static final Pattern WORD = Pattern.compile("\\b[A-Z][A-Za-z0-9]+\\b");
    private static final Pattern JAVA_COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern CODE_TAG = Pattern.compile("\\{@code\\s+([^}]*)}");
    /** Inline code: a pair of backticks on one line or across a line break (fenced blocks are blanked first). */
    private static final Pattern BACKTICKS = Pattern.compile("`([^`]+)`");

    private static final Pattern FENCE = Pattern.compile("```.*?```", Pattern.DOTALL);
    /** A comment of a YAML, shell, SQL or Dockerfile line. */
    static final Pattern LINE_COMMENT = Pattern.compile("(?m)(?:^|\\s)(?:#|--)(.*)$");

    private static final Pattern XML_COMMENT = Pattern.compile("<!--(.*?)-->", Pattern.DOTALL);

    /** File extensions: {@code FlowRecord.avsc} names a file, not a member. */
    private static final Set<String> EXTENSIONS =
            Set.of(("java avsc md sql yaml yml json class jar py sh gz pcap pcapng txt"
                            + " properties xml html js list adoc tsv bin csv jfr log conf png svg css env cfg jks p12 pem crt"
                            + " key tar zip jsonl")
                    .split(" "));

    /** Declaring sources of each type of the repository's Java code, by simple name. */
    private final Map<String, List<Path>> javaTypes = new HashMap<>();
    /** Supertypes (and record components' types) each declaration names, by declaring type. */
    private final Map<String, Set<String>> supertypes = new HashMap<>();

    private final Set<String> avroTypes = new HashSet<>();
    private final Set<String> known = new HashSet<>();
    private final Map<Path, String> texts = new HashMap<>();
    private int checked;

    /** Indexes the repository at {@code root}: its Java and Avro declarations, imports, literals and the upstream schemas. */
    static CitedTypeNames of(Path root) throws IOException {
        CitedTypeNames names = new CitedTypeNames();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                String path = root.relativize(f).toString().replace('\\', '/');
                if (path.contains("/target/") || path.startsWith("target/") || path.startsWith(".git")) {
                    continue;
                }
                if (path.endsWith(".java")) {
                    names.indexJava(f, names.text(f));
                } else if (path.endsWith(".avsc") && path.contains("/src/main/")) {
                    Matcher m = AVRO_NAME.matcher(names.text(f));
                    while (m.find()) {
                        names.avroTypes.add(m.group(1));
                    }
                } else if (path.startsWith("deploy/schemas/")) {
                    Matcher m = WORD.matcher(names.text(f));
                    while (m.find()) {
                        names.known.add(m.group());
                    }
                } else if (path.endsWith(".yaml") || path.endsWith(".yml")) {
                    names.knowLiterals(names.text(f));
                }
                if (path.endsWith(".md") || path.endsWith("pom.xml") || path.endsWith(".java")) {
                    names.knowQualified(names.text(f));
                }
            }
        }
        return names;
    }

    private void indexJava(Path file, String text) {
        Matcher d = DECLARED.matcher(text);
        while (d.find()) {
            javaTypes.computeIfAbsent(d.group(1), k -> new ArrayList<>()).add(file);
            Set<String> supers = supertypes.computeIfAbsent(d.group(1), k -> new HashSet<>());
            Matcher w = WORD.matcher(d.group(2));
            while (w.find()) {
                supers.add(w.group());
            }
        }
        knowLiterals(text);
    }

    /** Whole string literals: values the code writes or output it expects ({@code "RuntimeDefault"}). */
    private void knowLiterals(String text) {
        Matcher s = STRING_LITERAL.matcher(text);
        while (s.find()) {
            known.add(s.group(1));
        }
    }

    /** Library types named with their package (imports included): their simple names are known. */
    private void knowQualified(String text) {
        Matcher q = QUALIFIED.matcher(text);
        while (q.find()) {
            if (!q.group(1).startsWith("io.flowtrace.")) {
                known.add(q.group(2));
            }
        }
        Matcher p = QUALIFIED_PATH.matcher(text);
        while (p.find()) {
            known.add(p.group(1));
        }
    }

    /** Names cited as code in {@code file} that name nothing, as "path:line: Name" (a Java source's comments only). */
    List<String> stale(Path root, Path file) throws IOException {
        String name = file.getFileName().toString();
        String text = text(file);
        String where = root.relativize(file).toString();
        if (name.endsWith(".java")) {
            return staleInJava(where, text);
        }
        if (name.endsWith(".md")) {
            return staleInDoc(where, text);
        }
        return staleInComments(where, text, name.equals("pom.xml") ? XML_COMMENT : LINE_COMMENT);
    }

    List<String> staleInJava(String where, String text) {
        List<String> out = new ArrayList<>();
        Matcher c = JAVA_COMMENT.matcher(text);
        while (c.find()) {
            String comment = c.group();
            check(where, text, c.start(), comment, true, out);
            scanSpans(where, text, c.start(), comment, CODE_TAG, out);
            scanSpans(where, text, c.start(), comment, BACKTICKS, out);
        }
        return out;
    }

    List<String> staleInDoc(String where, String text) {
        List<String> out = new ArrayList<>();
        Matcher f = FENCE.matcher(text);
        StringBuilder outside = new StringBuilder(text);
        while (f.find()) {
            check(where, text, f.start(), f.group(), true, out);
            for (int i = f.start(); i < f.end(); i++) {
                if (outside.charAt(i) != '\n') {
                    outside.setCharAt(i, ' ');
                }
            }
        }
        String prose = outside.toString();
        check(where, text, 0, prose, true, out);
        scanSpans(where, text, 0, prose, BACKTICKS, out);
        return out;
    }

    List<String> staleInComments(String where, String text, Pattern comments) {
        List<String> out = new ArrayList<>();
        Matcher c = comments.matcher(text);
        while (c.find()) {
            check(where, text, c.start(1), c.group(1), true, out);
            scanSpans(where, text, c.start(1), c.group(1), BACKTICKS, out);
        }
        return out;
    }

    /** How many cited names were looked up (the walk reached the text). */
    int checked() {
        return checked;
    }

    private void scanSpans(String where, String text, int offset, String region, Pattern span, List<String> out) {
        Matcher s = span.matcher(region);
        while (s.find()) {
            check(where, text, offset + s.start(1), s.group(1), false, out);
        }
    }

    /** Checks the names of one region; {@code membersOnly}: prose, where only {@code Name.member} reads as code. */
    private void check(String where, String text, int offset, String region, boolean membersOnly, List<String> out) {
        Matcher m = TYPE_NAME.matcher(region);
        while (m.find()) {
            String member = m.group(2);
            if (member != null && EXTENSIONS.contains(member)) {
                member = null;
            }
            if (membersOnly && member == null) {
                continue;
            }
            checked++;
            String problem = problem(m.group(1), member);
            if (problem != null) {
                out.add(where + ":" + line(text, offset + m.start()) + ": " + problem);
            }
        }
        if (membersOnly) {
            Matcher q = OURS_QUALIFIED.matcher(region);
            while (q.find()) {
                checked++;
                if (!javaTypes.containsKey(q.group(1)) && !avroTypes.contains(q.group(1))) {
                    out.add(where + ":" + line(text, offset + q.start()) + ": " + q.group() + " (no such type)");
                }
            }
        }
    }

    /** Why {@code type} (with {@code member}, or null) names nothing; null when it resolves. */
    String problem(String type, String member) {
        if (javaTypes.containsKey(type)) {
            if (member == null || avroTypes.contains(type) || declares(type, member, new HashSet<>())) {
                return null;
            }
            return type + "." + member + " (" + type + " has no " + member + ")";
        }
        if (avroTypes.contains(type) || known.contains(type) || inJavaLang(type)) {
            return null;
        }
        return (member == null ? type : type + "." + member) + " (no such type)";
    }

    private boolean declares(String type, String member, Set<String> seen) {
        if (!seen.add(type) || !javaTypes.containsKey(type)) {
            return false;
        }
        Pattern word = Pattern.compile("\\b" + Pattern.quote(member) + "\\b");
        for (Path f : javaTypes.get(type)) {
            if (word.matcher(texts.get(f)).find()) {
                return true;
            }
        }
        for (String s : supertypes.getOrDefault(type, Set.of())) {
            if (declares(s, member, seen)) {
                return true;
            }
        }
        return false;
    }

    private String text(Path f) throws IOException {
        String t = texts.get(f);
        if (t == null) {
            t = Files.readString(f, StandardCharsets.ISO_8859_1);
            texts.put(f, t);
        }
        return t;
    }

    private static int line(String text, int offset) {
        int n = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    static boolean inJavaLang(String name) {
        try {
            Class.forName("java.lang." + name);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
