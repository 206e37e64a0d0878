package io.flowtrace.jobs.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.testkit.PrivateDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second local user, uid/gid 65534 (nobody) through util-linux {@code setpriv --reuid 65534 --regid
 * 65534 --clear-groups}: a real process of another user, not a simulation in this JVM. Needs root (CI
 * runs the suite as root) and setpriv; under {@code CI=true} their absence fails instead of skipping.
 */
final class AnotherLocalUser {
    static final String NOBODY = "65534";

    private AnotherLocalUser() {}

    /** Stops the test (skipped with the reason, failed under CI) unless a second user can be played. */
    static void assumeAvailable() {
        boolean possible = PrivateDirectory.currentUid() == 0 && Files.isExecutable(Path.of("/usr/bin/setpriv"));
        if (!possible && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI runs as root with util-linux setpriv: the second-user test cannot run");
        }
        assumeTrue(possible, "playing a second local user (uid 65534) needs root and setpriv");
    }

    /** Runs {@code command} as uid 65534; returns its output (stdout and stderr), stripped. */
    static String run(List<String> command) throws Exception {
        List<String> full =
                new ArrayList<>(List.of("setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", "--"));
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s ended", command).isTrue();
        return out.strip();
    }

    /** curl as uid 65534 without a client certificate; prints {@code status=CODE} (000: no HTTP answer). */
    static String curl(String method, String url) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                "curl", "-sk", "--max-time", "20", "-o", "/dev/null", "-w", "status=%{http_code}", "-X", method));
        if (method.equals("POST")) {
            cmd.addAll(List.of(
                    "-H", "Content-Type: application/json", "--data-binary", "{\"jobGraphFileName\":\"job.bin\"}"));
        }
        cmd.add(url);
        return run(cmd);
    }
}
