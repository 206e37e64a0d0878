package io.flowtrace.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SASL_SSL test broker's stores are made by keytool child processes; every local user can read a
 * process's command line (/proc/PID/cmdline is 0444), so the store password must not be on it. The test
 * reads the command lines of every process while {@link BrokerKeystores#make} runs, as another user
 * would, and the stores it made must open with the password (and not without it).
 */
class BrokerKeystoresTest {

    @Test
    void thePasswordIsOnNoKeytoolCommandLineAndOpensTheStores(@TempDir Path dir) throws Exception {
        String password = Secrets.randomPassword();
        CompletableFuture<BrokerKeystores> made = CompletableFuture.supplyAsync(() -> {
            try {
                return BrokerKeystores.make(dir, password);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        List<String> keytoolLines = new ArrayList<>();
        List<String> withPassword = new ArrayList<>();
        while (!made.isDone()) {
            for (String line : commandLines()) {
                if (line.contains("keytool") && !keytoolLines.contains(line)) {
                    keytoolLines.add(line);
                }
                if (line.contains(password)) {
                    withPassword.add(line);
                }
            }
        }
        BrokerKeystores stores = made.join();
        // the three runs (genkeypair, exportcert, importcert) each live for a JVM start: all are seen
        assertThat(keytoolLines)
                .as("keytool command lines seen while the stores were made")
                .anyMatch(l -> l.contains("-genkeypair"))
                .anyMatch(l -> l.contains("-importcert"));
        assertThat(withPassword).as("command lines holding the store password").isEmpty();

        KeyStore broker = load(stores.keystore(), password);
        assertThat(broker.isKeyEntry("broker"))
                .as("broker.p12 holds the key pair")
                .isTrue();
        KeyStore trust = load(stores.truststore(), password);
        assertThat(trust.getCertificate("broker"))
                .as("the truststore's certificate is the broker's")
                .isEqualTo(broker.getCertificate("broker"));
        assertThat(canLoad(stores.keystore(), "not-" + password))
                .as("broker.p12 opens with another password")
                .isFalse();
    }

    /** Every process's argv, NULs as spaces: what any local user reads from /proc/PID/cmdline. */
    private static List<String> commandLines() throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                try {
                    out.add(new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                            .replace('\0', ' '));
                } catch (IOException e) {
                    // the process ended while listing
                }
            }
        }
        return out;
    }

    private static KeyStore load(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    private static boolean canLoad(Path file, String password) {
        try {
            load(file, password);
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
