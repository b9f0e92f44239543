package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.nio.file.Path;
import java.util.List;

/**
 * How every Falcon Kafka client (each component, the CLI and Debezium's internal clients) authenticates and
 * encrypts: declared once here, listed by every component that talks to Kafka, turned into client properties by
 * io.falcon.events.security.KafkaClientSecurity. A secret comes from its environment variable or from a file (a
 * mounted k8s Secret), never from the command line.
 */
public final class KafkaSecurityKeys {
    /** Google's login callback handler for Managed Service for Apache Kafka (library managed-kafka-auth-login-handler). */
    public static final String GOOGLE_LOGIN_CALLBACK_HANDLER =
            "com.google.cloud.hosted.kafka.auth.GcpLoginCallbackHandler";

    public static final Setting<String> PROTOCOL = withDefault(
            "falcon.kafka.security.protocol",
            SettingType.Choice.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
            "PLAINTEXT",
            Validator.any(),
            "Kafka's security.protocol for every client: SSL encrypts (and authenticates with a client certificate"
                    + " when a key store is set), SASL_SSL encrypts and authenticates with SASL (Managed Kafka:"
                    + " SASL_SSL with OAUTHBEARER)");
    public static final Setting<Path> TRUSTSTORE = optional(
            "falcon.kafka.ssl.truststore.location",
            SettingType.PATH,
            "the JVM's default trust store (public CAs)",
            Validator.any(),
            "trust store with the CA that signed the brokers' certificates");
    public static final Setting<String> TRUSTSTORE_TYPE = withDefault(
            "falcon.kafka.ssl.truststore.type",
            SettingType.Choice.of("PKCS12", "JKS", "PEM"),
            "PKCS12",
            Validator.any(),
            "format of falcon.kafka.ssl.truststore.location");
    public static final Setting<String> TRUSTSTORE_PASSWORD = optional(
            "falcon.kafka.ssl.truststore.password",
            SettingType.SECRET,
            "no password (or the file's)",
            Validator.any(),
            "trust store password, from the environment only");
    public static final Setting<Path> TRUSTSTORE_PASSWORD_FILE = optional(
            "falcon.kafka.ssl.truststore.password-file",
            SettingType.PATH,
            "no file",
            Validator.any(),
            "file holding the trust store password (k8s: a mounted Secret); trailing newline ignored");
    public static final Setting<Path> KEYSTORE = optional(
            "falcon.kafka.ssl.keystore.location",
            SettingType.PATH,
            "no client certificate",
            Validator.any(),
            "key store with this client's certificate and key, for brokers that require TLS client authentication");
    public static final Setting<String> KEYSTORE_TYPE = withDefault(
            "falcon.kafka.ssl.keystore.type",
            SettingType.Choice.of("PKCS12", "JKS", "PEM"),
            "PKCS12",
            Validator.any(),
            "format of falcon.kafka.ssl.keystore.location");
    public static final Setting<String> KEYSTORE_PASSWORD = optional(
            "falcon.kafka.ssl.keystore.password",
            SettingType.SECRET,
            "no password (or the file's)",
            Validator.any(),
            "key store password (also the key's), from the environment only");
    public static final Setting<Path> KEYSTORE_PASSWORD_FILE = optional(
            "falcon.kafka.ssl.keystore.password-file",
            SettingType.PATH,
            "no file",
            Validator.any(),
            "file holding the key store password; trailing newline ignored");
    public static final Setting<String> SASL_MECHANISM = optional(
            "falcon.kafka.sasl.mechanism",
            SettingType.Choice.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"),
            "none; required with SASL_PLAINTEXT and SASL_SSL",
            Validator.any(),
            "SASL mechanism; OAUTHBEARER logs in through falcon.kafka.sasl.login-callback-handler");
    public static final Setting<String> SASL_USERNAME = optional(
            "falcon.kafka.sasl.username",
            SettingType.TEXT,
            "none; required with PLAIN and SCRAM",
            Validator.any(),
            "SASL user (the component's own principal, see docs/deploy.md for its ACLs)");
    public static final Setting<String> SASL_PASSWORD = optional(
            "falcon.kafka.sasl.password",
            SettingType.SECRET,
            "none (or the file's)",
            Validator.any(),
            "SASL password, from the environment only (k8s: secretKeyRef)");
    public static final Setting<Path> SASL_PASSWORD_FILE = optional(
            "falcon.kafka.sasl.password-file",
            SettingType.PATH,
            "no file",
            Validator.any(),
            "file holding the SASL password (k8s: a mounted Secret); trailing newline ignored");
    public static final Setting<String> SASL_LOGIN_CALLBACK_HANDLER = withDefault(
            "falcon.kafka.sasl.login-callback-handler",
            SettingType.TEXT,
            GOOGLE_LOGIN_CALLBACK_HANDLER,
            Validator.matching("[A-Za-z_$][A-Za-z0-9_$.]*", "a Java class name"),
            "OAUTHBEARER only: the class that fetches tokens; the default uses Google application default"
                    + " credentials (Workload Identity) for Managed Kafka, and its jar must be on the class path");

    /**
     * Any other standard Kafka client property (falcon.kafka.client.ssl.endpoint.identification.algorithm= ...),
     * given to every Kafka client of the component; Falcon's own security settings win over it.
     */
    public static final Passthrough CLIENT = new Passthrough(
            "falcon.kafka.client.",
            "passed to every Kafka client verbatim, prefix removed (e.g. falcon.kafka.client.ssl.cipher.suites);"
                    + " not for secrets, which come from the falcon.kafka.* secret settings");

    /** The settings in documentation order, for each component's list. */
    public static final List<Setting<?>> SETTINGS = List.of(
            PROTOCOL,
            TRUSTSTORE,
            TRUSTSTORE_TYPE,
            TRUSTSTORE_PASSWORD,
            TRUSTSTORE_PASSWORD_FILE,
            KEYSTORE,
            KEYSTORE_TYPE,
            KEYSTORE_PASSWORD,
            KEYSTORE_PASSWORD_FILE,
            SASL_MECHANISM,
            SASL_USERNAME,
            SASL_PASSWORD,
            SASL_PASSWORD_FILE,
            SASL_LOGIN_CALLBACK_HANDLER);

    /** The settings' consistency: checked with every other problem when a component starts. */
    public static final List<Rule> RULES = List.of(
            new Rule(
                    List.of(PROTOCOL, SASL_MECHANISM),
                    "SASL_PLAINTEXT and SASL_SSL need a SASL mechanism, and a mechanism needs one of them",
                    values -> values.get(PROTOCOL).startsWith("SASL_")
                            == values.find(SASL_MECHANISM).isPresent()),
            new Rule(
                    List.of(SASL_MECHANISM, SASL_USERNAME, SASL_PASSWORD, SASL_PASSWORD_FILE),
                    "PLAIN and SCRAM need a user and a password (the variable or the file); OAUTHBEARER takes"
                            + " neither",
                    values -> {
                        boolean password = values.find(SASL_PASSWORD).isPresent()
                                || values.find(SASL_PASSWORD_FILE).isPresent();
                        boolean user = values.find(SASL_USERNAME).isPresent();
                        return values.find(SASL_MECHANISM)
                                .map(mechanism ->
                                        mechanism.equals("OAUTHBEARER") ? !user && !password : user && password)
                                .orElse(!user && !password);
                    }),
            eitherNot(SASL_PASSWORD, SASL_PASSWORD_FILE),
            eitherNot(TRUSTSTORE_PASSWORD, TRUSTSTORE_PASSWORD_FILE),
            eitherNot(KEYSTORE_PASSWORD, KEYSTORE_PASSWORD_FILE),
            new Rule(
                    List.of(PROTOCOL, TRUSTSTORE, KEYSTORE),
                    "a trust store or key store needs SSL or SASL_SSL (PLAINTEXT would silently not use it)",
                    values -> values.get(PROTOCOL).endsWith("SSL")
                            || (values.find(TRUSTSTORE).isEmpty()
                                    && values.find(KEYSTORE).isEmpty())));

    private static Rule eitherNot(Setting<String> variable, Setting<Path> file) {
        return new Rule(
                List.of(variable, file),
                "give the password either in the variable or in the file, not both",
                values ->
                        !(values.find(variable).isPresent() && values.find(file).isPresent()));
    }

    /**
     * These settings alone, for a program that reads them apart from its other options (the CLI, whose connection
     * options are command-line flags): see {@link SettingValues#parsePart}.
     */
    public static final Component ALONE =
            new Component("kafka security", "Kafka client security settings", SETTINGS, List.of(CLIENT), RULES);

    /** A component's own settings followed by these, for its list. */
    public static List<Setting<?>> after(List<Setting<?>> own) {
        return java.util.stream.Stream.concat(own.stream(), SETTINGS.stream()).toList();
    }

    /** A component's own rules followed by these. */
    public static List<Rule> rulesAfter(List<Rule> own) {
        return java.util.stream.Stream.concat(own.stream(), RULES.stream()).toList();
    }

    private KafkaSecurityKeys() {}
}
