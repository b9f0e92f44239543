package io.falcon.statussink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Deletes the versions of jobs whose terminal write is older than the retention, so falcon_status_versions holds the
 * jobs in flight and the recently finished ones instead of every job ever run. Deletes in batches of at most
 * batchSize rows, each its own transaction, so a backlog (the first run after an upgrade) never holds many locks or
 * one long transaction beside the write path. Safe to lose: the write guard seals a terminal row without a version.
 */
public final class StatusVersionPruner {
    static final String DELETE_BATCH = "DELETE FROM falcon_status_versions WHERE terminal_at < ? LIMIT ?";

    private final Duration retention;
    private final int batchSize;

    public StatusVersionPruner(Duration retention, int batchSize) {
        if (retention.isNegative() || retention.isZero() || batchSize < 1) {
            throw new IllegalArgumentException("retention and batch size must be positive");
        }
        this.retention = retention;
        this.batchSize = batchSize;
    }

    /** The terminal writes before this instant are past the retention at now. */
    public Instant cutoff(Instant now) {
        return now.minus(retention);
    }

    /**
     * Deletes every version past the retention at now, batch by batch, and returns how many. The session must be
     * at UTC (as the status-sink's is), the zone terminal_at was written in. Stops between batches when the thread
     * is interrupted.
     */
    public int prune(Connection connection, Instant now) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(true);
        int deleted = 0;
        try (PreparedStatement delete = connection.prepareStatement(DELETE_BATCH)) {
            delete.setObject(1, LocalDateTime.ofInstant(cutoff(now), ZoneOffset.UTC));
            delete.setInt(2, batchSize);
            int batch;
            do {
                batch = delete.executeUpdate();
                deleted += batch;
            } while (batch == batchSize && !Thread.currentThread().isInterrupted());
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        return deleted;
    }
}
