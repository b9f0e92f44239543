package io.falcon.events.security;

import io.falcon.events.config.KafkaSecurityKeys;
import io.falcon.events.config.SettingValues;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * How a Falcon Kafka client encrypts and authenticates, in the one place every client is built from
 * ({@link KafkaConnection}): the catalog's falcon.kafka.security.* / ssl.* / sasl.* settings
 * ({@link KafkaSecurityKeys}) become Kafka client properties here. Password files are read once, when the settings
 * are, so that a missing file stops the component at its start rather than at its first reconnect.
 *
 * @param passthrough other standard client properties (falcon.kafka.client.*), overridden by Falcon's own
 */
public record KafkaClientSecurity(
        String protocol,
        Optional<Store> trustStore,
        Optional<Store> keyStore,
        Optional<Sasl> sasl,
        Map<String, String> passthrough) {

    /** No encryption, no authentication: the embedded broker and docker-compose's Kafka. */
    public static final KafkaClientSecurity PLAINTEXT =
            new KafkaClientSecurity("PLAINTEXT", Optional.empty(), Optional.empty(), Optional.empty(), Map.of());

    public KafkaClientSecurity {
        passthrough = Map.copyOf(passthrough);
    }

    /** A trust store or key store file. */
    public record Store(Path location, String type, Optional<Secret> password) {}

    /** The SASL login of a client. */
    public sealed interface Sasl {
        /** PLAIN or SCRAM-SHA-256 / SCRAM-SHA-512: a user and its password. */
        record UserPassword(String mechanism, String username, Secret password) implements Sasl {}

        /** OAUTHBEARER with tokens from a login callback handler (Google's for Managed Kafka). */
        record OAuthBearer(String loginCallbackHandler) implements Sasl {}
    }

    /** Reads the settings of a component that declares the Kafka security settings; password files are read here. */
    public static KafkaClientSecurity from(SettingValues values) {
        return from(values, SecretFiles::read);
    }

    /** A trust or key store: its location, type and password (the variable or the file), when a location is set. */
    private static Optional<Store> store(
            SettingValues values,
            io.falcon.events.config.Setting<Path> location,
            io.falcon.events.config.Setting<String> type,
            io.falcon.events.config.Setting<String> password,
            io.falcon.events.config.Setting<Path> passwordFile,
            Function<Path, String> readFile) {
        return values.find(location)
                .map(path -> new Store(
                        path, values.get(type), secret(values.find(password), values.find(passwordFile), readFile)));
    }

    /** As above with the file reader given (tests). */
    public static KafkaClientSecurity from(SettingValues values, Function<Path, String> readFile) {
        String protocol = values.get(KafkaSecurityKeys.PROTOCOL);
        Optional<Store> trustStore = store(
                values,
                KafkaSecurityKeys.TRUSTSTORE,
                KafkaSecurityKeys.TRUSTSTORE_TYPE,
                KafkaSecurityKeys.TRUSTSTORE_PASSWORD,
                KafkaSecurityKeys.TRUSTSTORE_PASSWORD_FILE,
                readFile);
        Optional<Store> keyStore = store(
                values,
                KafkaSecurityKeys.KEYSTORE,
                KafkaSecurityKeys.KEYSTORE_TYPE,
                KafkaSecurityKeys.KEYSTORE_PASSWORD,
                KafkaSecurityKeys.KEYSTORE_PASSWORD_FILE,
                readFile);
        // the catalog's rules have checked that PLAIN/SCRAM have a user and a password and OAUTHBEARER neither
        Optional<Sasl> sasl = values.find(KafkaSecurityKeys.SASL_MECHANISM)
                .map(mechanism -> mechanism.equals("OAUTHBEARER")
                        ? new Sasl.OAuthBearer(values.get(KafkaSecurityKeys.SASL_LOGIN_CALLBACK_HANDLER))
                        : new Sasl.UserPassword(
                                mechanism,
                                values.find(KafkaSecurityKeys.SASL_USERNAME).orElseThrow(),
                                secret(
                                                values.find(KafkaSecurityKeys.SASL_PASSWORD),
                                                values.find(KafkaSecurityKeys.SASL_PASSWORD_FILE),
                                                readFile)
                                        .orElseThrow()));
        return new KafkaClientSecurity(
                protocol, trustStore, keyStore, sasl, values.passedThrough(KafkaSecurityKeys.CLIENT));
    }

    private static Optional<Secret> secret(
            Optional<String> variable, Optional<Path> file, Function<Path, String> readFile) {
        return variable.map(Secret::new).or(() -> file.map(readFile).map(Secret::new));
    }

    /** The Kafka client properties (no bootstrap.servers): pass-through first, then Falcon's own. */
    public Map<String, String> clientProperties() {
        Map<String, String> props = new LinkedHashMap<>(passthrough);
        props.put("security.protocol", protocol);
        trustStore.ifPresent(store -> {
            props.put(
                    SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, store.location().toString());
            props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, store.type());
            store.password().ifPresent(p -> props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, p.text()));
        });
        keyStore.ifPresent(store -> {
            props.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, store.location().toString());
            props.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, store.type());
            store.password().ifPresent(p -> {
                props.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, p.text());
                // PKCS12 (the default) protects the key with the store's password
                props.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, p.text());
            });
        });
        sasl.ifPresent(login -> {
            if (login instanceof Sasl.UserPassword user) {
                props.put(SaslConfigs.SASL_MECHANISM, user.mechanism());
                String module = user.mechanism().equals("PLAIN")
                        ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                        : "org.apache.kafka.common.security.scram.ScramLoginModule";
                props.put(
                        SaslConfigs.SASL_JAAS_CONFIG,
                        module + " required username=\"" + jaasQuoted(user.username()) + "\" password=\""
                                + jaasQuoted(user.password().text()) + "\";");
            } else if (login instanceof Sasl.OAuthBearer bearer) {
                props.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
                props.put(
                        SaslConfigs.SASL_JAAS_CONFIG,
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
                props.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, bearer.loginCallbackHandler());
            }
        });
        return props;
    }

    /** The same properties with a prefix (Debezium's producer., consumer., schema.history.internal.producer. ...). */
    public Map<String, String> clientProperties(String prefix) {
        Map<String, String> prefixed = new LinkedHashMap<>();
        clientProperties().forEach((key, value) -> prefixed.put(prefix + key, value));
        return prefixed;
    }

    /** JAAS quotes its values with '"'; a quote or backslash inside one is escaped with a backslash. */
    static String jaasQuoted(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    static boolean mayBeSecret(String key) {
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("password")
                || lower.contains("jaas")
                || lower.contains("secret")
                || lower.contains("token")
                || lower.contains("key");
    }

    /** Pass-through keys whose value could be a secret are shown by name only. */
    @Override
    public String toString() {
        Map<String, String> shown = new LinkedHashMap<>();
        passthrough.forEach((key, value) -> shown.put(key, mayBeSecret(key) ? "***" : value));
        return "KafkaClientSecurity[protocol=" + protocol + ", trustStore=" + trustStore + ", keyStore=" + keyStore
                + ", sasl=" + sasl + ", passthrough=" + shown + "]";
    }
}
