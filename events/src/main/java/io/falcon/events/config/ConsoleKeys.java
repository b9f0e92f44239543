package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.nio.file.Path;
import java.util.List;

/**
 * The settings of the console, the read-only web pages of the fleet, the queues and each job's story. It reads the
 * jobs and clusters tables as a SELECT-only database user and falcon.task-status, falcon.decisions, falcon.isolation
 * and falcon.fault-verdicts without a consumer group (it commits nothing).
 */
public final class ConsoleKeys {
    public static final Setting<String> HOST = withDefault(
            "falcon.console.host",
            SettingType.TEXT,
            "0.0.0.0",
            Validator.any(),
            "address the console's HTTP server listens on (127.0.0.1: this machine only)");
    public static final Setting<Long> PORT = withDefault(
            "falcon.console.port",
            SettingType.WHOLE,
            8090L,
            Validator.between(0, 65535),
            "port of the console's pages (0: any free port)");
    public static final Setting<String> AUTH = withDefault(
            "falcon.console.auth",
            SettingType.Choice.of("token", "iap", "none"),
            "token",
            Validator.any(),
            "who may read the pages: token (a bearer token, or the same token once as ?token= for a browser, from"
                    + " falcon.console.token-file), iap (the identity-aware proxy's X-Goog-Authenticated-User-Email"
                    + " header; only behind such a proxy, which must be the only way in), none (./falcon-local on"
                    + " 127.0.0.1 only)");
    public static final Setting<Path> TOKEN_FILE = optional(
            "falcon.console.token-file",
            SettingType.PATH,
            "none",
            Validator.any(),
            "file holding the bearer token (a mounted Secret; at least 32 characters), with auth=token");
    public static final Setting<Long> JOBS_TRACKED = withDefault(
            "falcon.console.jobs-tracked",
            SettingType.WHOLE,
            20_000L,
            Validator.between(100, 10_000_000),
            "how many jobs the console keeps the transitions, decisions and fault verdicts of in memory (the least"
                    + " recently updated go first; their rows are still shown)");
    public static final Setting<Long> EVENTS_PER_JOB = withDefault(
            "falcon.console.events-per-job",
            SettingType.WHOLE,
            64L,
            Validator.between(4, 10_000),
            "how many of a job's latest transitions and decisions the console keeps each");
    public static final Setting<Long> PAGE_SIZE = withDefault(
            "falcon.console.page-size",
            SettingType.WHOLE,
            50L,
            Validator.between(5, 1_000),
            "rows per page of the queue and job lists");

    public static final Component COMPONENT = new Component(
            "console",
            "Read-only web pages of the fleet, the queues and each job's story, updated live (server-sent events).",
            DatabaseTlsKeys.after(KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.OPS_PORT,
                    SharedKeys.DB_URL,
                    SharedKeys.DB_USER,
                    SharedKeys.DB_PASSWORD,
                    HOST,
                    PORT,
                    AUTH,
                    TOKEN_FILE,
                    JOBS_TRACKED,
                    EVENTS_PER_JOB,
                    PAGE_SIZE))),
            List.of(KafkaSecurityKeys.CLIENT),
            DatabaseTlsKeys.rulesAfter(KafkaSecurityKeys.rulesAfter(List.of(new Rule(
                    List.of(AUTH, TOKEN_FILE),
                    "falcon.console.auth=token needs falcon.console.token-file",
                    values -> !values.get(AUTH).equals("token")
                            || values.find(TOKEN_FILE).isPresent())))));

    private ConsoleKeys() {}
}
