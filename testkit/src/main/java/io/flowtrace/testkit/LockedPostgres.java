package io.flowtrace.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * An embedded PostgreSQL 17 (zonky) that another local user cannot use, for the demo and the test suite
 * alike (every local user can reach 127.0.0.1, and as root zonky runs PostgreSQL under {@code unshare -U},
 * which keeps host uid 0, so a superuser login there runs programs as root):
 *
 * <ul>
 *   <li>zonky's initdb asks for {@code -A trust -U postgres}; the options zonky appends after its own
 *       override them: {@code --auth=scram-sha-256} and {@code --pwfile} with a random superuser password
 *       (a 0600 file in the private directory, deleted once initdb has read it);
 *   <li>TCP on 127.0.0.1 only and no Unix socket (zonky's default is a 0777 one in /tmp);
 *   <li>the binary cache (zonky unpacks PostgreSQL once and reuses it) is {@code pg-binaries} in this
 *       user's checked 0700 directory ({@link PrivateDirectory}), not zonky's shared
 *       {@code <tmp>/embedded-pg}, and is refused when it is a link, another user's or open to others.
 *       zonky makes that folder world-writable ({@code setWritable(true, false)} in its prepareBinaries),
 *       harmless inside a 0700 parent, and it is set back to 0700 after every start;
 *   <li>zonky's working directory ({@code ot.epg.working-dir}, default the shared {@code <tmp>/embedded-pg},
 *       which every builder creates and in which every start runs {@code pg_ctl stop} on any "stale" data
 *       directory it finds, with the {@code postmaster.pid} someone put there) is {@code pg-work} in the
 *       private directory.
 * </ul>
 */
public final class LockedPostgres {
    public static final String SUPERUSER = "postgres";
    static final String BINARY_CACHE = "pg-binaries";

    private LockedPostgres() {}

    /**
     * Starts PostgreSQL on {@code dataDir} (initdb when it is empty) with the superuser password
     * {@code superPassword}; {@code port} 0 lets zonky choose. {@code cleanDataDirectory}: zonky deletes the
     * data directory on close.
     */
    public static EmbeddedPostgres start(
            Path privateDir, Path dataDir, String superPassword, int port, boolean cleanDataDirectory)
            throws IOException {
        Path binaries = binaryCache(privateDir);
        // zonky's working directory (see above); read when the builder is made, so set before it
        System.setProperty("ot.epg.working-dir", privateDir.resolve("pg-work").toString());
        Path pwfile = Secrets.file(privateDir, "pg-superuser-", superPassword);
        try {
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                    .setOverrideWorkingDirectory(binaries.toFile())
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(cleanDataDirectory)
                    .setLocaleConfig("auth", "scram-sha-256")
                    .setLocaleConfig("pwfile", pwfile.toString())
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("unix_socket_directories", "")
                    .setConnectConfig("password", superPassword);
            if (port > 0) {
                b.setPort(port);
            }
            return b.start();
        } finally {
            Files.deleteIfExists(pwfile);
            if (Files.isDirectory(binaries, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(binaries, PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    /** {@code privateDir/pg-binaries}, closed to others again (zonky opens it) and checked, or refused. */
    public static Path binaryCache(Path privateDir) throws IOException {
        Path binaries = privateDir.resolve(BINARY_CACHE);
        if (Files.isDirectory(binaries, LinkOption.NOFOLLOW_LINKS)
                && (Integer) Files.getAttribute(binaries, "unix:uid", LinkOption.NOFOLLOW_LINKS)
                        == PrivateDirectory.currentUid()) {
            Files.setPosixFilePermissions(binaries, PosixFilePermissions.fromString("rwx------"));
        }
        return PrivateDirectory.subdirectory(privateDir, BINARY_CACHE, "the PostgreSQL binary cache");
    }

    /** A JDBC URL on 127.0.0.1 (the only address the server listens on). */
    public static String jdbcUrl(int port, String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }
}
