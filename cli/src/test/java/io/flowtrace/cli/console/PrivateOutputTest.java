package io.flowtrace.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.cli.FlowtraceCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What another local user (uid 65534, nobody) can plant in the way of a file root writes: the
 * planted directories and links are made here by root and handed to uid 65534 with lchown, which
 * leaves exactly what that user could have made (their own directory, their own link in a sticky
 * directory such as /tmp). Needs root (CI runs as root).
 */
class PrivateOutputTest {
    private static final int NOBODY = 65534;
    private static final byte[] PRECIOUS = "root's file\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsRoot() {
        assumeTrue(PrivateOutput.currentUid() == 0, "hands files to uid 65534, which needs root");
    }

    @Test
    void aLinkPlantedInAStickyDirectoryIsNotFollowed() throws Exception {
        Path victim = Files.createDirectory(tmp.resolve("victim"));
        Files.write(victim.resolve("index.html"), PRECIOUS);
        Path shared = sticky(tmp.resolve("shared"));
        Path link = Files.createSymbolicLink(shared.resolve("report"), victim);
        giveToNobody(link);
        Path planted = Files.createSymbolicLink(shared.resolve("flows.jsonl"), victim.resolve("index.html"));
        giveToNobody(planted);

        assertThatThrownBy(() -> write(shared.resolve("report/index.html")))
                .isInstanceOf(PrivateOutput.RefusedException.class)
                .hasMessageStartingWith(link + " is a symbolic link of uid 65534 in " + shared);
        assertThatThrownBy(() -> write(planted))
                .isInstanceOf(PrivateOutput.RefusedException.class)
                .hasMessageStartingWith(planted + " exists and belongs to uid 65534");
        assertThat(Files.readAllBytes(victim.resolve("index.html"))).isEqualTo(PRECIOUS);
    }

    @Test
    void aLinkInAnotherUsersDirectoryIsNotFollowed() throws Exception {
        Path victim = Files.createDirectory(tmp.resolve("victim"));
        Files.write(victim.resolve("index.html"), PRECIOUS);
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        giveToNobody(Files.createSymbolicLink(theirs.resolve("index.html"), victim.resolve("index.html")));
        giveToNobody(theirs);

        assertThatThrownBy(() -> write(theirs.resolve("index.html")))
                .isInstanceOf(PrivateOutput.RefusedException.class)
                .hasMessageStartingWith(theirs + " belongs to uid 65534, not to you (uid 0) or root");
        assertThat(Files.readAllBytes(victim.resolve("index.html"))).isEqualTo(PRECIOUS);
    }

    @Test
    void analyzeRefusesAReportDirectoryOfAnotherUserWithOneLineAndExitCode2() throws Exception {
        Path theirs = Files.createDirectory(tmp.resolve("report"));
        giveToNobody(theirs);
        String capture = Path.of("..", "testdata", "decoding", "tcp4-sack.pcap").toString();
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            exit = new CommandLine(new FlowtraceCli()).execute("analyze", "-q", "--report", theirs.toString(), capture);
        } finally {
            System.setErr(savedErr);
        }
        // README "Exit codes": 2 is an invalid command line, a bad option value
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow())
                .startsWith("--report " + theirs + " belongs to uid 65534");
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("\tat ");
        try (Stream<Path> files = Files.list(theirs)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void createsWhatIsMissingAndReplacesItsOwnFileOrLinkByRenaming() throws Exception {
        Path file = tmp.resolve("a/b/report.html");
        write(file);
        assertThat(Files.readString(file)).isEqualTo("new\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");

        Path victim = Files.write(tmp.resolve("victim"), PRECIOUS);
        Path ownLink = Files.createSymbolicLink(tmp.resolve("a/b/link.html"), victim);
        write(ownLink);
        assertThat(Files.isSymbolicLink(ownLink)).isFalse(); // the link replaced, its target untouched
        assertThat(Files.readAllBytes(victim)).isEqualTo(PRECIOUS);
        try (Stream<Path> left = Files.list(tmp.resolve("a/b"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("report.html", "link.html");
        }
    }

    private static void write(Path file) throws IOException {
        PrivateOutput.write(file, out -> out.write("new\n".getBytes(StandardCharsets.UTF_8)));
    }

    private static Path sticky(Path dir) throws IOException {
        Files.createDirectory(dir);
        Files.setAttribute(dir, "unix:mode", 01777);
        return dir;
    }

    private static void giveToNobody(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
    }
}
