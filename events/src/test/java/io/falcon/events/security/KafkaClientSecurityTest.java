package io.falcon.events.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.config.InvalidSettingsException;
import io.falcon.events.config.KafkaSecurityKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.StatusSinkKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSecurityTest {
    private static final String PASSWORD = "s3cr3t-\"quoted\"-pw";

    @TempDir
    Path dir;

    /** The status-sink's settings: it lists the Kafka security settings like every component. */
    private static SettingValues sink(Map<String, String> extra) {
        Map<String, String> raw = new HashMap<>(Map.of(
                "falcon.kafka.bootstrap-servers", "kafka:9093",
                "falcon.db.url", "jdbc:mysql://db/falcon",
                "falcon.db.user", "falcon_sink"));
        raw.putAll(extra);
        return SettingValues.parse(StatusSinkKeys.COMPONENT, raw);
    }

    @Test
    void plaintextWhenNothingIsSet() {
        KafkaConnection kafka = KafkaConnection.from(sink(Map.of()));
        assertThat(kafka.security()).isEqualTo(KafkaClientSecurity.PLAINTEXT);
        assertThat(kafka.properties())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("bootstrap.servers", "kafka:9093", "security.protocol", "PLAINTEXT"));
    }

    @Test
    void scramOverTlsWithPasswordsFromFiles() throws Exception {
        Path saslPassword = Files.writeString(dir.resolve("sasl"), PASSWORD + "\n");
        Path trustPassword = Files.writeString(dir.resolve("trust"), "trust-pw");
        Map<String, String> props = KafkaConnection.from(sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "sasl_ssl",
                        "FALCON_KAFKA_SASL_MECHANISM", "scram-sha-512",
                        "FALCON_KAFKA_SASL_USERNAME", "status-sink",
                        "FALCON_KAFKA_SASL_PASSWORD_FILE", saslPassword.toString(),
                        "FALCON_KAFKA_SSL_TRUSTSTORE_LOCATION", "/etc/falcon/kafka/ca.p12",
                        "FALCON_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE", trustPassword.toString())))
                .security()
                .clientProperties();
        assertThat(props)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.location", "/etc/falcon/kafka/ca.p12")
                .containsEntry("ssl.truststore.type", "PKCS12")
                .containsEntry("ssl.truststore.password", "trust-pw")
                .doesNotContainKey("ssl.keystore.location");
        // the file's trailing newline is not part of the password; the JAAS quotes inside it are escaped
        assertThat(props.get("sasl.jaas.config"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"status-sink\""
                        + " password=\"s3cr3t-\\\"quoted\\\"-pw\";");
    }

    @Test
    void plainWithPasswordFromTheEnvironmentAndAClientCertificate() {
        Map<String, String> props = KafkaClientSecurity.from(
                        sink(Map.of(
                                "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                                "FALCON_KAFKA_SASL_MECHANISM", "PLAIN",
                                "FALCON_KAFKA_SASL_USERNAME", "executor",
                                "FALCON_KAFKA_SASL_PASSWORD", PASSWORD,
                                "FALCON_KAFKA_SSL_KEYSTORE_LOCATION", "/etc/falcon/kafka/client.p12",
                                "FALCON_KAFKA_SSL_KEYSTORE_PASSWORD", "key-pw")),
                        file -> {
                            throw new AssertionError("no file is read: " + file);
                        })
                .clientProperties();
        assertThat(props)
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.keystore.location", "/etc/falcon/kafka/client.p12")
                .containsEntry("ssl.keystore.password", "key-pw")
                .containsEntry("ssl.key.password", "key-pw")
                .doesNotContainKey("ssl.truststore.location");
        assertThat(props.get("sasl.jaas.config"))
                .startsWith("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"executor\"");
    }

    @Test
    void oauthBearerUsesGooglesLoginHandlerForManagedKafka() {
        Map<String, String> props = KafkaClientSecurity.from(sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "FALCON_KAFKA_SASL_MECHANISM", "OAUTHBEARER")))
                .clientProperties();
        assertThat(props)
                .containsEntry("sasl.mechanism", "OAUTHBEARER")
                .containsEntry("sasl.login.callback.handler.class", KafkaSecurityKeys.GOOGLE_LOGIN_CALLBACK_HANDLER)
                .containsEntry(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        Map<String, String> other = KafkaClientSecurity.from(sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                        "FALCON_KAFKA_SASL_MECHANISM", "OAUTHBEARER",
                        "falcon.kafka.sasl.login-callback-handler", "com.example.TokenHandler")))
                .clientProperties();
        assertThat(other).containsEntry("sasl.login.callback.handler.class", "com.example.TokenHandler");
    }

    @Test
    void googlesLoginHandlerIsOnTheClassPathAndKafkaAcceptsTheOauthBearerSettings() {
        Map<String, Object> props = new java.util.HashMap<>(KafkaClientSecurity.from(sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "FALCON_KAFKA_SASL_MECHANISM", "OAUTHBEARER")))
                .clientProperties());
        props.put("bootstrap.servers", "bootstrap.managedkafka.example:9092");
        props.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        props.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        // Kafka resolves the handler class by name when it parses the config: it must be on the class path
        org.apache.kafka.clients.producer.ProducerConfig config =
                new org.apache.kafka.clients.producer.ProducerConfig(props);
        assertThat(config.getClass("sasl.login.callback.handler.class").getName())
                .isEqualTo(KafkaSecurityKeys.GOOGLE_LOGIN_CALLBACK_HANDLER);
    }

    @Test
    void passThroughReachesEveryClientButNeverOverridesFalconsOwn() {
        KafkaConnection kafka = KafkaConnection.from(sink(Map.of(
                "falcon.kafka.client.ssl.endpoint.identification.algorithm", "",
                "falcon.kafka.client.security.protocol", "PLAINTEXT",
                "FALCON_KAFKA_SECURITY_PROTOCOL", "SSL")));
        assertThat(kafka.security().clientProperties())
                .containsEntry("ssl.endpoint.identification.algorithm", "")
                .containsEntry("security.protocol", "SSL");
        Properties debezium = kafka.properties("schema.history.internal.producer.");
        assertThat(debezium)
                .containsEntry("schema.history.internal.producer.bootstrap.servers", "kafka:9093")
                .containsEntry("schema.history.internal.producer.security.protocol", "SSL")
                .containsEntry("schema.history.internal.producer.ssl.endpoint.identification.algorithm", "");
        assertThat(kafka.with(Map.of("acks", "all", "security.protocol", "SASL_SSL")))
                .containsEntry("acks", "all")
                .containsEntry("security.protocol", "SASL_SSL");
    }

    @Test
    void inconsistentSettingsAreRefusedAtOnce() {
        assertThatThrownBy(() -> sink(Map.of("FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("need a SASL mechanism");
        assertThatThrownBy(() -> sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
                        "FALCON_KAFKA_SASL_MECHANISM", "SCRAM-SHA-256",
                        "FALCON_KAFKA_SASL_USERNAME", "cdc")))
                .hasMessageContaining("need a user and a password");
        assertThatThrownBy(() -> sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                        "FALCON_KAFKA_SASL_MECHANISM", "OAUTHBEARER",
                        "FALCON_KAFKA_SASL_PASSWORD", PASSWORD)))
                .hasMessageContaining("OAUTHBEARER takes neither");
        assertThatThrownBy(() -> sink(Map.of(
                        "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                        "FALCON_KAFKA_SASL_MECHANISM", "PLAIN",
                        "FALCON_KAFKA_SASL_USERNAME", "cdc",
                        "FALCON_KAFKA_SASL_PASSWORD", PASSWORD,
                        "FALCON_KAFKA_SASL_PASSWORD_FILE", "/run/secrets/pw")))
                .hasMessageContaining("either in the variable or in the file")
                .message()
                .doesNotContain(PASSWORD);
        assertThatThrownBy(() -> sink(Map.of("FALCON_KAFKA_SSL_TRUSTSTORE_LOCATION", "/ca.p12")))
                .hasMessageContaining("a trust store or key store needs SSL or SASL_SSL");
        assertThatThrownBy(() -> sink(Map.of("FALCON_KAFKA_SASL_MECHANISM", "GSSAPI")))
                .hasMessageContaining("falcon.kafka.sasl.mechanism");
    }

    @Test
    void secretsStayOutOfToStringAndMessages() {
        Map<String, String> raw = Map.of(
                "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "FALCON_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "FALCON_KAFKA_SASL_USERNAME", "status-sink",
                "FALCON_KAFKA_SASL_PASSWORD", PASSWORD,
                "FALCON_KAFKA_SSL_TRUSTSTORE_LOCATION", "/ca.p12",
                "FALCON_KAFKA_SSL_TRUSTSTORE_PASSWORD", "trust-" + PASSWORD,
                "falcon.kafka.client.ssl.key.password", "key-" + PASSWORD);
        KafkaConnection kafka = KafkaConnection.from(sink(raw));
        assertThat(kafka.security().clientProperties().get("sasl.jaas.config")).contains("s3cr3t-");
        assertThat(kafka.toString())
                .contains("status-sink", "SCRAM-SHA-512", "/ca.p12", "ssl.key.password")
                .doesNotContain(PASSWORD);
    }

    @Test
    void aSecretIsNeverTakenFromTheCommandLine() {
        Properties systemProperties = new Properties();
        systemProperties.setProperty("falcon.kafka.sasl.password", PASSWORD);
        Map<String, String> environment = Map.of(
                "FALCON_KAFKA_BOOTSTRAP_SERVERS", "kafka:9093",
                "FALCON_DB_URL", "jdbc:mysql://db/falcon",
                "FALCON_DB_USER", "falcon_sink");
        assertThatThrownBy(() -> SettingValues.fromEnvironment(StatusSinkKeys.COMPONENT, environment, systemProperties))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("falcon.kafka.sasl.password")
                .hasMessageContaining("never as a -D option")
                .message()
                .doesNotContain(PASSWORD);
    }

    @Test
    void aMissingOrEmptyPasswordFileStopsTheStartNamingTheFile() throws Exception {
        Path missing = dir.resolve("absent");
        Map<String, String> scram = Map.of(
                "FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
                "FALCON_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "FALCON_KAFKA_SASL_USERNAME", "cdc");
        Map<String, String> withMissing = new HashMap<>(scram);
        withMissing.put("FALCON_KAFKA_SASL_PASSWORD_FILE", missing.toString());
        assertThatThrownBy(() -> KafkaClientSecurity.from(sink(withMissing)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(missing.toString());
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        Map<String, String> withEmpty = new HashMap<>(scram);
        withEmpty.put("FALCON_KAFKA_SASL_PASSWORD_FILE", empty.toString());
        assertThatThrownBy(() -> KafkaClientSecurity.from(sink(withEmpty))).hasMessageContaining("is empty");
    }
}
