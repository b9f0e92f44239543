package io.falcon.console;

import io.falcon.events.config.ConsoleKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.security.KafkaConnection;
import io.falcon.events.security.SecretFiles;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Typed settings of the console: a view of its catalog settings ({@link ConsoleKeys}). */
public record ConsoleConfig(
        KafkaConnection kafka,
        String jdbcUrl,
        String dbUser,
        String dbPassword,
        DatabaseTls dbTls,
        String host,
        int port,
        Authenticator.Mode auth,
        Optional<Path> tokenFile,
        int jobsTracked,
        int eventsPerJob,
        int pageSize) {

    public static ConsoleConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(ConsoleKeys.COMPONENT, raw));
    }

    public static ConsoleConfig from(SettingValues values) {
        Authenticator.Mode mode =
                Authenticator.Mode.valueOf(values.get(ConsoleKeys.AUTH).toUpperCase(java.util.Locale.ROOT));
        return new ConsoleConfig(
                KafkaConnection.from(values),
                values.get(SharedKeys.DB_URL),
                values.get(SharedKeys.DB_USER),
                values.get(SharedKeys.DB_PASSWORD),
                DatabaseTls.from(values),
                values.get(ConsoleKeys.HOST),
                values.getInt(ConsoleKeys.PORT),
                mode,
                mode == Authenticator.Mode.TOKEN ? values.find(ConsoleKeys.TOKEN_FILE) : Optional.empty(),
                values.getInt(ConsoleKeys.JOBS_TRACKED),
                values.getInt(ConsoleKeys.EVENTS_PER_JOB),
                values.getInt(ConsoleKeys.PAGE_SIZE));
    }

    /** The bearer token, read from its file now (a rotated Secret is read at the next start). */
    public Optional<String> token() {
        return tokenFile.map(SecretFiles::read);
    }

    @Override
    public String toString() {
        // the password and the token stay out of logs
        return "ConsoleConfig[kafka=" + kafka + ", dbUser=" + dbUser + ", dbTls=" + dbTls + ", host=" + host
                + ", port=" + port + ", auth=" + auth + ", jobsTracked=" + jobsTracked + ", eventsPerJob="
                + eventsPerJob + ", pageSize=" + pageSize + "]";
    }
}
