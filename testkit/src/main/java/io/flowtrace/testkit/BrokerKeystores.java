package io.flowtrace.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The TLS material of the SASL_SSL test broker, made with the JDK's {@code keytool}: a self-signed
 * RSA certificate for CN and SAN localhost/127.0.0.1 in the broker's PKCS12 keystore, exported and
 * imported into a PKCS12 truststore for the clients. Valid two days: it lives as long as one test class.
 * The password reaches keytool through its environment ({@code -storepass:env}), not its command line,
 * which every local user can read.
 */
final class BrokerKeystores {
    /** keytool reads the store and key password from this variable of its environment, never its argv. */
    private static final String PASSWORD_VARIABLE = "FLOWTRACE_STORE_PASSWORD";

    private final Path keystore;
    private final Path truststore;
    private final String password;

    private BrokerKeystores(Path dir, String password) {
        this.keystore = dir.resolve("broker.p12");
        this.truststore = dir.resolve("truststore.p12");
        this.password = password;
    }

    /** Writes broker.p12, broker.crt and truststore.p12 into {@code dir}, every store under {@code password}. */
    static BrokerKeystores make(Path dir, String password) throws IOException, InterruptedException {
        BrokerKeystores stores = new BrokerKeystores(dir, password);
        String cert = dir.resolve("broker.crt").toString();
        stores.keytool(
                "-genkeypair",
                List.of(
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "2",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost,ip:127.0.0.1",
                        "-keystore",
                        stores.keystore.toString(),
                        "-keypass:env",
                        PASSWORD_VARIABLE));
        stores.keytool("-exportcert", List.of("-rfc", "-keystore", stores.keystore.toString(), "-file", cert));
        stores.keytool("-importcert", List.of("-noprompt", "-file", cert, "-keystore", stores.truststore.toString()));
        return stores;
    }

    Path keystore() {
        return keystore;
    }

    Path truststore() {
        return truststore;
    }

    /** One keytool command on the alias "broker" with PKCS12 stores under the one password. */
    private void keytool(String command, List<String> arguments) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(ChildProcesses.jdkTool("keytool"), command, "-alias", "broker"));
        line.addAll(arguments);
        line.addAll(List.of("-storetype", "PKCS12", "-storepass:env", PASSWORD_VARIABLE));
        ChildProcesses.run(line, Map.of(PASSWORD_VARIABLE, password), "keytool " + command);
    }
}
