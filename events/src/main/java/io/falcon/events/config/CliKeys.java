package io.falcon.events.config;

import java.util.List;

/**
 * What the falcon CLI reads from the environment; its --db-url, --db-user, --db-password-file and --bootstrap-servers
 * options win. The CLI looks these up itself (io.falcon.events.Settings); they are declared here so that the
 * catalog, its documentation and the deployment files' check know them.
 */
public final class CliKeys {
    public static final Component COMPONENT = new Component(
            "cli",
            "The falcon CLI (./falcon, docker compose run cli); an unset database user or password is empty.",
            DatabaseTlsKeys.after(KafkaSecurityKeys.after(List.of(
                    SharedKeys.DB_URL,
                    SharedKeys.DB_USER,
                    SharedKeys.DB_PASSWORD,
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS))),
            List.of(KafkaSecurityKeys.CLIENT),
            DatabaseTlsKeys.rulesAfter(KafkaSecurityKeys.rulesAfter(List.of())));

    private CliKeys() {}
}
