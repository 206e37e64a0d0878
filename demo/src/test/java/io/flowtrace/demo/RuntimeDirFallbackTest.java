package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's private directory when another local user (uid 65534) made {@code flowtrace-0}
 * first in the shared temporary directory: root cannot be blocked by it and uses a directory of its
 * own (scripts/runtime-dir.sh). Runs the script's function in bash, as the launcher does; needs root
 * to hand the planted directory to uid 65534.
 */
class RuntimeDirFallbackTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void needsRoot() {
        assumeTrue(RuntimeDir.currentUid() == 0, "hands a directory to uid 65534, which needs root");
    }

    @Test
    void anotherUsersDirectoryGetsAFallbackInTheHomeDirectory() throws Exception {
        Path shared = sticky(tmp.resolve("shared"));
        Path planted = Files.createDirectory(shared.resolve("flowtrace-0"));
        Files.setAttribute(planted, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        Path home = Files.createDirectory(tmp.resolve("home"));

        Result r = runtimeDir(shared, home);

        Path fallback = home.resolve(".cache/flowtrace-run");
        assertThat(r.status).as(r.err).isZero();
        assertThat(r.out.strip()).isEqualTo(fallback.toString());
        assertThat(r.err).contains(planted + " belongs to uid 65534, not to you (uid 0)", "using " + fallback);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fallback, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");
        assertThat(Files.getAttribute(fallback, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(0);
    }

    @Test
    void ownDirectoryWithAWrongModeIsStillRefused() throws Exception {
        Path shared = sticky(tmp.resolve("shared"));
        Path own = Files.createDirectory(shared.resolve("flowtrace-0"));
        Files.setAttribute(own, "unix:mode", 0777);

        Result r = runtimeDir(shared, Files.createDirectory(tmp.resolve("home")));

        assertThat(r.status).isEqualTo(1);
        assertThat(r.err).contains(own + " has mode 777, not 700").doesNotContain("using");
    }

    private record Result(int status, String out, String err) {}

    private static Result runtimeDir(Path tmpdir, Path home) throws Exception {
        Path script = Bundled.home().resolve("scripts/runtime-dir.sh");
        ProcessBuilder pb = new ProcessBuilder(List.of("bash", "-c", ". '" + script + "' && flowtrace_runtime_dir"));
        pb.environment().put("TMPDIR", tmpdir.toString());
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("XDG_RUNTIME_DIR");
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(
                p.exitValue(),
                new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static Path sticky(Path dir) throws Exception {
        Files.createDirectory(dir);
        Files.setAttribute(dir, "unix:mode", 01777);
        return dir;
    }
}
