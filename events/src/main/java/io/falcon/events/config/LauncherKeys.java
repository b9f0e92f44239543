package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.util.List;

/**
 * Environment variables read before any Java code runs (deploy/entrypoint.sh, the falcon script, logback
 * configurations). They are declared so that the catalog knows every FALCON_* name a deployment may set; only
 * their environment form works.
 */
public final class LauncherKeys {
    public static final Setting<String> LOG_FORMAT = withDefault(
            "falcon.log.format",
            SettingType.Choice.of("json", "text"),
            "json",
            Validator.any(),
            "the image's log format (deploy/entrypoint.sh): JSON lines with the mdc, or plain text");
    public static final Setting<String> LOG_LEVEL = withDefault(
            "falcon.log.level",
            SettingType.Choice.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"),
            "INFO",
            Validator.any(),
            "level of the io.falcon loggers in the JSON log configuration");
    public static final Setting<String> JAVA_OPTS = optional(
            "falcon.java-opts",
            SettingType.TEXT,
            "none",
            Validator.any(),
            "extra JVM options of deploy/entrypoint.sh and ./falcon");
    public static final Setting<Long> COMMON_POOL_THREADS = withDefault(
            "falcon.common-pool-threads",
            SettingType.WHOLE,
            2L,
            Validator.between(1, 1024),
            "threads of the JVM's common pool (deploy/entrypoint.sh): the JDK http client completes each Kubernetes"
                    + " response there, and with fewer than two it starts a new thread per response instead");
    public static final Setting<String> CLASSPATH = optional(
            "falcon.classpath",
            SettingType.TEXT,
            "the component's own module class path, /falcon/classpath/MODULE",
            Validator.any(),
            "the class path deploy/entrypoint.sh runs a component with");
    public static final Setting<String> LOG_FILE = withDefault(
            "falcon.log.file",
            SettingType.TEXT,
            "target/falcon-local.log",
            Validator.any(),
            "where ./falcon-local writes the components' logs");
    public static final Setting<String> REBUILD = withDefault(
            "falcon.rebuild",
            SettingType.Choice.of("0", "1"),
            "0",
            Validator.any(),
            "1: ./falcon builds the project again before running the CLI");
    public static final Setting<String> CLI_LOG_LEVEL = withDefault(
            "falcon.cli.log-level",
            SettingType.Choice.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"),
            "OFF",
            Validator.any(),
            "log level of the falcon CLI's libraries (its own output is not logging)");

    public static final Component COMPONENT = new Component(
            "launcher",
            "Environment only: read by deploy/entrypoint.sh, ./falcon, ./falcon-local and the logback"
                    + " configurations, not by a component's Java code.",
            List.of(LOG_FORMAT, LOG_LEVEL, JAVA_OPTS, COMMON_POOL_THREADS, CLASSPATH, LOG_FILE, REBUILD, CLI_LOG_LEVEL),
            List.of(),
            List.of());

    private LauncherKeys() {}
}
