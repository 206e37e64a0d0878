package io.flowtrace.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Per-run secrets: random passwords and the 0600 files that hand them to another process. */
public final class Secrets {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {}

    /** 24 random bytes as 48 hex digits: nothing to quote in SQL, a URL, YAML or a JAAS line. */
    public static String randomPassword() {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** A new 0600 file in {@code dir} (a private directory) holding one line; created, never opened through a link. */
    public static Path file(Path dir, String prefix, String line) throws IOException {
        Path f = Files.createTempFile(
                dir, prefix, "", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(
                f,
                line + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
        return f;
    }
}
