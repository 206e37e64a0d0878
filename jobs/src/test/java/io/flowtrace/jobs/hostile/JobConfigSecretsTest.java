package io.flowtrace.jobs.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.config.JobConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the job logs at start ({@link JobConfig#describe}) never contains a password. */
class JobConfigSecretsTest {
    @Test
    void thePostgresPasswordFromAFileIsReadButNeverDescribed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pg");
        Files.writeString(file, "pg-s3cret-from-file\n");
        JobConfig config = JobConfig.fromArgs("--jdbc-password-file", file.toString(), "--jdbc-user", "writer");
        assertThat(config.jdbcPassword()).isEqualTo("pg-s3cret-from-file");
        assertThat(config.describe().toString())
                .doesNotContain("pg-s3cret-from-file")
                .contains(file.toString());
    }

    @Test
    void thePostgresPasswordFromTheEnvironmentIsNeverDescribed() {
        // PATH is set in every environment: stand-in for FLOWTRACE_JDBC_PASSWORD
        String value = System.getenv("PATH");
        JobConfig config = JobConfig.of(Map.of("jdbc-password-env", "PATH"));
        assertThat(config.jdbcPassword()).isEqualTo(value);
        assertThat(config.describe().toString()).doesNotContain(value).contains("jdbc-password-env=PATH");
    }

    @Test
    void thereIsNoOptionToGiveThePostgresPasswordOnTheCommandLine() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JobConfig.fromArgs("--jdbc-password", "x"))
                .hasMessageContaining("unknown option --jdbc-password");
    }

    @Test
    void kafkaSecretsAreMaskedInTheLoggedConfiguration() {
        JobConfig config = JobConfig.of(Map.of(
                "kafka.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"kafka-s3cret\";",
                "kafka.ssl.truststore.password", "store-s3cret"));
        assertThat(config.describe().toString()).doesNotContain("kafka-s3cret").doesNotContain("store-s3cret");
        // the secrets still reach the Kafka clients, and harmless properties are still shown
        assertThat(config.kafkaProperties().getProperty("ssl.truststore.password"))
                .isEqualTo("store-s3cret");
        assertThat(JobConfig.of(Map.of("kafka.security.protocol", "SASL_SSL")).describe())
                .containsEntry("kafka.security.protocol", "SASL_SSL");
    }

    @Test
    void anyOptionNamedPasswordPassphraseSecretTokenOrKeyIsMasked() {
        JobConfig config = JobConfig.of(Map.of(
                "kafka.sasl.oauthbearer.assertion.private.key.passphrase", "phrase-s3cret",
                "kafka.sasl.oauthbearer.client.credentials.client.secret", "client-s3cret",
                "kafka.ssl.keystore.key", "-----BEGIN PRIVATE KEY----- inline-s3cret",
                "kafka.sasl.login.token", "token-s3cret",
                "kafka.ssl.keystore.location", "/etc/flowtrace/keystore.p12"));
        Map<String, String> logged = config.describe();
        assertThat(logged.toString()).doesNotContain("phrase-s3cret", "client-s3cret", "inline-s3cret", "token-s3cret");
        assertThat(logged)
                .containsEntry("kafka.sasl.oauthbearer.assertion.private.key.passphrase", "******")
                .containsEntry("kafka.sasl.login.token", "******")
                // a path to a store says where the secret is, not what it is
                .containsEntry("kafka.ssl.keystore.location", "/etc/flowtrace/keystore.p12");
    }

    @Test
    void passwordsInsideUrlsAreMaskedAndTheRestOfTheUrlShown() {
        JobConfig config = JobConfig.of(Map.of(
                "jdbc-url",
                        "jdbc:postgresql://db.example:5432/flowtrace?user=writer&password=url-s3cret&sslmode=verify-full",
                "bootstrap-servers", "broker:9092"));
        assertThat(config.describe())
                .containsEntry(
                        "jdbc-url",
                        "jdbc:postgresql://db.example:5432/flowtrace?user=writer&password=******&sslmode=verify-full");
        JobConfig userInfo =
                JobConfig.of(Map.of("jdbc-url", "jdbc:postgresql://writer:info-s3cret@db.example/flowtrace"));
        assertThat(userInfo.describe())
                .containsEntry("jdbc-url", "jdbc:postgresql://writer:******@db.example/flowtrace");
        JobConfig semicolon =
                JobConfig.of(Map.of("jdbc-url", "jdbc:postgresql://db/flowtrace;PASSWORD=semi-s3cret;ssl=true"));
        assertThat(semicolon.describe().get("jdbc-url"))
                .isEqualTo("jdbc:postgresql://db/flowtrace;PASSWORD=******;ssl=true");
    }
}
