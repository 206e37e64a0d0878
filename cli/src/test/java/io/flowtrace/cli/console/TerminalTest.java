package io.flowtrace.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check that spares loading JNA never says "no terminal" where isatty(3) would say yes: files,
 * pipes and /dev/null are ruled out, character devices that can be terminals are left to isatty, and
 * for this JVM's own standard streams the answer agrees with libc's.
 */
class TerminalTest {
    @TempDir
    Path dir;

    @Test
    void aRegularFileADirectoryAndAPipeAreNoTerminal() throws Exception {
        Path file = Files.writeString(dir.resolve("out.txt"), "x");
        assertThat(Terminal.mayBeTerminal(file)).isFalse();
        assertThat(Terminal.mayBeTerminal(dir)).isFalse();
        Process cat = new ProcessBuilder("cat").start(); // its stdin is a pipe from this JVM
        try {
            assertThat(Terminal.mayBeTerminal(Path.of("/proc/" + cat.pid() + "/fd/0")))
                    .isFalse();
        } finally {
            cat.destroy();
        }
    }

    @Test
    void theMemoryDevicesAreNoTerminalButTtyDevicesAreLeftToIsatty() {
        assumeTrue(
                Files.exists(Path.of("/dev/null")) && Files.exists(Path.of("/dev/ptmx")), "no /dev/null or /dev/ptmx");
        assertThat(Terminal.mayBeTerminal(Path.of("/dev/null"))).isFalse();
        assertThat(Terminal.mayBeTerminal(Path.of("/dev/zero"))).isFalse();
        assertThat(Terminal.mayBeTerminal(Path.of("/dev/ptmx"))).isTrue(); // 5:2, the pseudo-terminal master
    }

    @Test
    void aPathThatCannotBeStatedIsLeftToIsatty() {
        assertThat(Terminal.mayBeTerminal(dir.resolve("absent"))).isTrue();
    }

    @Test
    void takesTheMajorNumberAsGlibcEncodesIt() {
        // gnu_dev_makedev(major, minor): (minor & 0xff) | ((major & 0xfff) << 8)
        //                              | ((minor & ~0xff) << 12) | ((major & ~0xfff) << 32)
        assertThat(Terminal.major(0x0103)).isEqualTo(1); // /dev/null, 1:3
        assertThat(Terminal.major(0x8803)).isEqualTo(136); // /dev/pts/3, 136:3
        // major 4131 (0x1023), minor 0x1045: 0x45 | 0x023 << 8 | 0x1000 << 12 | 0x1000 << 32
        assertThat(Terminal.major(0x0000_1000_0100_2345L)).isEqualTo(4131);
    }

    @Test
    void agreesWithIsattyOnThisProcesssStandardStreams() {
        for (int fd = 0; fd <= 2; fd++) {
            if (!Terminal.mayBeTerminal(Path.of("/proc/self/fd/" + fd))) {
                assertThat(libcSaysTerminal(fd)).as("fd %d", fd).isFalse();
            }
        }
    }

    private static boolean libcSaysTerminal(int fd) {
        Terminal.CLib libc = com.sun.jna.Native.load("c", Terminal.CLib.class);
        return libc.isatty(fd) == 1;
    }
}
