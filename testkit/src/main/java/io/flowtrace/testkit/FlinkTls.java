package io.flowtrace.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS for a Flink cluster's endpoints, from a keystore made for one run in a private 0700
 * directory: one self-signed RSA key pair (CN and SAN localhost/127.0.0.1), which is both the key store
 * and the trust store (the JDK trusts the certificate of a key entry), so a peer is accepted only if it
 * holds the same private key. Internal SSL covers the blob server, the RPC system and the data exchange
 * (always mutual); REST SSL with {@code security.ssl.rest.authentication-enabled} asks every REST client
 * for that certificate too, so another local user can neither submit a job ({@code POST /jobs}) nor put
 * blobs, although the ports are on 127.0.0.1 where every user reaches them.
 */
public final class FlinkTls {
    private final Path keystore;
    private final String password;

    private FlinkTls(Path keystore, String password) {
        this.keystore = keystore;
        this.password = password;
    }

    /**
     * Makes {@code flink-tls.p12} in {@code dir} (a checked private directory) with the JDK's keytool; the
     * store password reaches keytool through its environment, never its command line.
     */
    public static FlinkTls create(Path dir) throws IOException, InterruptedException {
        String password = Secrets.randomPassword();
        Path keystore = dir.resolve("flink-tls-" + Secrets.randomPassword().substring(0, 12) + ".p12");
        ProcessBuilder pb = new ProcessBuilder(List.of(
                        ChildProcesses.jdkTool("keytool"),
                        "-genkeypair",
                        "-alias",
                        "flink",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "7",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost,ip:127.0.0.1",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keystore.toString(),
                        "-storepass:env",
                        "FLOWTRACE_TLS_PASSWORD"))
                .redirectErrorStream(true);
        pb.environment().put("FLOWTRACE_TLS_PASSWORD", password);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool -genkeypair failed: " + out);
        }
        Files.setPosixFilePermissions(keystore, PosixFilePermissions.fromString("rw-------"));
        return new FlinkTls(keystore, password);
    }

    public Path keystore() {
        return keystore;
    }

    /** The store and key password (PKCS12: one for both). */
    public String password() {
        return password;
    }

    /**
     * The Flink configuration entries: internal SSL (blob server, RPC, data exchange) and REST SSL with
     * client authentication, all from this keystore.
     */
    public Map<String, String> flinkConfiguration() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("security.ssl.internal.enabled", "true");
        c.put("security.ssl.rest.enabled", "true");
        c.put("security.ssl.rest.authentication-enabled", "true");
        for (String scope : List.of("internal", "rest")) {
            String p = "security.ssl." + scope + ".";
            c.put(p + "keystore", keystore.toString());
            c.put(p + "keystore-password", password);
            c.put(p + "key-password", password);
            c.put(p + "truststore", keystore.toString());
            c.put(p + "truststore-password", password);
        }
        return c;
    }

    /**
     * The client side of the mutual TLS for the project's own REST clients (a {@code java.net.http}
     * client): this key pair as the client certificate, and only this certificate trusted.
     */
    public SSLContext sslContext() throws IOException {
        try {
            KeyStore store = load();
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the Flink keystore " + keystore + ": " + e, e);
        }
    }

    /**
     * Writes the certificate (public, no key) as PEM next to the keystore, for clients that take a CA
     * file (curl's {@code --cacert}); returns its path.
     */
    public Path writeCertificatePem() throws IOException {
        try {
            Certificate cert = load().getCertificate("flink");
            String pem = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(cert.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
            Path file = Path.of(keystore.toString().replaceFirst("\\.p12$", ".crt"));
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            return file;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the certificate of " + keystore + ": " + e, e);
        }
    }

    private KeyStore load() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    /** Deletes the keystore and the PEM certificate, if written. */
    public void delete() throws IOException {
        Files.deleteIfExists(keystore);
        Files.deleteIfExists(Path.of(keystore.toString().replaceFirst("\\.p12$", ".crt")));
    }
}
