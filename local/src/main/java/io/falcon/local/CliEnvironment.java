package io.falcon.local;

import java.util.List;

/**
 * The lines a person pastes into another shell so that {@code ./falcon} (the CLI, which reads FALCON_DB_URL,
 * FALCON_DB_USER, FALCON_DB_PASSWORD and FALCON_KAFKA_BOOTSTRAP_SERVERS) reaches the Falcon that
 * {@code ./falcon-local --keep-running} left up.
 */
public final class CliEnvironment {
    private CliEnvironment() {}

    /** One {@code export NAME='value'} line per connection setting the CLI reads, each value quoted for a shell. */
    public static List<String> exports(String jdbcUrl, String user, String password, String bootstrapServers) {
        return List.of(
                export("FALCON_DB_URL", jdbcUrl),
                export("FALCON_DB_USER", user),
                export("FALCON_DB_PASSWORD", password),
                export("FALCON_KAFKA_BOOTSTRAP_SERVERS", bootstrapServers));
    }

    private static String export(String name, String value) {
        return "export " + name + "=" + shellQuoted(value);
    }

    /** The value in single quotes, each single quote in it written as {@code '\''}: a POSIX shell takes it as is. */
    static String shellQuoted(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
