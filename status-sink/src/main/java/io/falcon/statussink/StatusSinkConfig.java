package io.falcon.statussink;

import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.config.StatusSinkKeys;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.security.KafkaConnection;
import java.time.Duration;
import java.util.Map;

/**
 * Typed settings of the status-sink: a view of its catalog settings ({@link StatusSinkKeys}). It reads the catalog's
 * falcon.task-status; the topic is not a setting.
 */
public record StatusSinkConfig(
        KafkaConnection kafka,
        String groupId,
        String jdbcUrl,
        String dbUser,
        String dbPassword,
        DatabaseTls dbTls,
        int maxBatch,
        Duration maxBackoff,
        Duration terminalRetention,
        Duration pruneInterval,
        int pruneBatch) {

    /** Parses raw settings (keys or environment names); every problem is reported at once. */
    public static StatusSinkConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(StatusSinkKeys.COMPONENT, raw));
    }

    public static StatusSinkConfig from(SettingValues values) {
        return new StatusSinkConfig(
                KafkaConnection.from(values),
                values.get(StatusSinkKeys.GROUP_ID),
                values.get(SharedKeys.DB_URL),
                values.get(SharedKeys.DB_USER),
                values.get(SharedKeys.DB_PASSWORD),
                DatabaseTls.from(values),
                values.getInt(StatusSinkKeys.MAX_BATCH),
                values.get(StatusSinkKeys.MAX_BACKOFF),
                values.get(StatusSinkKeys.TERMINAL_RETENTION),
                values.get(StatusSinkKeys.PRUNE_INTERVAL),
                values.getInt(StatusSinkKeys.PRUNE_BATCH));
    }

    @Override
    public String toString() {
        // the password stays out of logs
        return "StatusSinkConfig[kafka=" + kafka + ", groupId=" + groupId + ", jdbcUrl=" + jdbcUrl
                + ", dbUser=" + dbUser + ", dbTls=" + dbTls + ", maxBatch=" + maxBatch + ", maxBackoff=" + maxBackoff
                + ", terminalRetention=" + terminalRetention + ", pruneInterval="
                + pruneInterval + ", pruneBatch=" + pruneBatch + "]";
    }
}
