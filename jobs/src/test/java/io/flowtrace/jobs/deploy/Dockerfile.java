package io.flowtrace.jobs.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Dockerfile as its instructions, with the user each one runs as. No Docker engine runs here, so
 * this is how the tests know who executes a {@code RUN}: the base image's last {@code USER} (a table of
 * the images this repository builds on, each with the file that says so), then every {@code USER} of the
 * stage. Continuation lines are joined; comments and blank lines dropped (Dockerfile reference:
 * "Parser directives", "Environment replacement" are not used by these files).
 */
record Dockerfile(Path file, List<Instruction> instructions) {
    /** The user the official images end with (their Dockerfiles' last USER; none means root). */
    static final Map<String, String> BASE_IMAGE_USERS = Map.of(
            // apache/flink-docker 2.2/scala_2.12-java17-ubuntu/Dockerfile: "USER flink" before ENTRYPOINT.
            "flink", "flink",
            // docker-library eclipse-temurin and maven images set no USER.
            "eclipse-temurin", "root",
            "maven", "root",
            // docker-library postgres runs its entrypoint as root and steps down with gosu.
            "postgres", "root");

    /** One instruction: its keyword, its arguments (continuations joined), the stage and user it runs in. */
    record Instruction(int line, String keyword, String arguments, int stage, String user) {
        @Override
        public String toString() {
            return "line " + line + ": " + keyword + " " + arguments + " (as " + user + ")";
        }
    }

    static Dockerfile parse(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Instruction> out = new ArrayList<>();
        Map<String, Integer> stageNames = new HashMap<>();
        List<String> stageUsers = new ArrayList<>(); // the user at the end of each stage so far
        int stage = -1;
        String user = null;
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            int first = i + 1;
            StringBuilder joined = new StringBuilder();
            while (text.endsWith("\\") && i + 1 < lines.size()) {
                joined.append(text, 0, text.length() - 1).append(' ');
                text = lines.get(++i).strip();
                while (text.startsWith("#") && i + 1 < lines.size()) { // comments inside a continuation are skipped
                    text = lines.get(++i).strip();
                }
            }
            joined.append(text);
            String[] parts = joined.toString().split("\\s+", 2);
            String keyword = parts[0].toUpperCase(Locale.ROOT);
            String args = parts.length > 1 ? parts[1].strip() : "";
            if (keyword.equals("FROM")) {
                stage++;
                String[] from = args.split("\\s+");
                String image = from[0];
                user = stageNames.containsKey(image)
                        ? stageUsers.get(stageNames.get(image))
                        : baseImageUser(image, file);
                if (from.length >= 3 && from[1].equalsIgnoreCase("AS")) {
                    stageNames.put(from[2], stage);
                }
                stageUsers.add(user);
            } else if (keyword.equals("USER")) {
                user = args.split(":")[0];
                stageUsers.set(stage, user);
            }
            out.add(new Instruction(first, keyword, args, stage, user));
        }
        return new Dockerfile(file, out);
    }

    private static String baseImageUser(String image, Path file) {
        String afterRegistry = image.substring(image.lastIndexOf('/') + 1);
        String repository = afterRegistry.split("[:@]")[0];
        String user = BASE_IMAGE_USERS.get(repository);
        if (user == null) {
            throw new AssertionError(file + ": base image " + image + " is not in Dockerfile.BASE_IMAGE_USERS;"
                    + " add the user its Dockerfile ends with");
        }
        return user;
    }

    List<Instruction> all(String keyword) {
        return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
    }

    int lastStage() {
        return instructions.get(instructions.size() - 1).stage();
    }

    /** The user the image's entrypoint starts as (the last stage's last user). */
    String runtimeUser() {
        return instructions.get(instructions.size() - 1).user();
    }

    static boolean isRoot(String user) {
        return user.equals("root") || user.equals("0");
    }
}
