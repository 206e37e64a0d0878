package io.flowtrace.cli.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The merged output of an agent run as a process (redirectErrorStream), read as it comes on a thread of
 * its own: every line kept (and echoed as {@code agent> ...}), and a line awaited by what it contains.
 */
final class AgentOutput {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private AgentOutput(Process agent) {
        reader = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    System.err.println("agent> " + line);
                }
            } catch (IOException e) {
                lines.add("(reading the agent's output failed: " + e + ")");
            }
        });
        reader.start();
    }

    static AgentOutput follow(Process agent) {
        return new AgentOutput(agent);
    }

    /** The first line that contains {@code text}, waiting up to {@code seconds} for it. */
    String await(String text, long seconds) throws InterruptedException, TimeoutException {
        return group(Pattern.compile(Pattern.quote(text)), 0, seconds);
    }

    /** Group {@code group} of the first line {@code p} finds something in, waiting up to {@code seconds}. */
    String group(Pattern p, int group, long seconds) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            for (String line : lines) {
                Matcher m = p.matcher(line);
                if (m.find()) {
                    return m.group(group);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no line matching " + p + " in " + seconds + " s: " + all());
            }
            Thread.sleep(50);
        }
    }

    /** Every line so far, joined; after the process ended, {@link #join()} first. */
    String all() {
        return String.join("\n", lines);
    }

    /** Waits (up to 5 s) for the rest of the output of an ended process. */
    void join() throws InterruptedException {
        reader.join(5000);
    }

    /** Runs {@code cmd}, its output discarded; its exit status. */
    static int sh(String... cmd) {
        try {
            return new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
