package io.falcon.statussink;

import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Meta;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/** A fresh database with the jobs table, on the shared MariaDB. */
final class StatusDb {
    final String name = SharedInfra.uniqueName("sink");
    final EmbeddedMariaDb db = SharedInfra.mariaDb();

    StatusDb() throws SQLException {
        this(true);
    }

    /** A database with the jobs table, and Falcon's own schema when migrated. */
    StatusDb(boolean migrated) throws SQLException {
        db.createDatabase(name);
        try (Connection c = connect()) {
            JobsTable.create(c);
        }
        if (migrated) {
            SchemaMigrator.migrate(url(), db.user(), db.password());
        }
    }

    Connection connect() throws SQLException {
        return db.connect(name);
    }

    String url() {
        return db.jdbcUrl(name);
    }

    void insertJob(String id, String status) throws SQLException {
        try (Connection c = connect(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status) VALUES (?, 'a', 'n', 'v6e', '2x4', '{}', ?)")) {
            insert.setString(1, id);
            insert.setString(2, status);
            insert.executeUpdate();
        }
    }

    String column(String id, String column) throws SQLException {
        try (Connection c = connect(); PreparedStatement select = c.prepareStatement(
                "SELECT " + column + " FROM jobs WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    static TaskStatus status(String jobId, long version, Status status, Optional<Reason> reason, String message) {
        Optional<Instant> finished = status.isTerminal() ? Optional.of(Instant.parse("2026-12-02T10:05:00.123Z"))
                : Optional.empty();
        return new TaskStatus(Meta.of("test", Instant.now()), jobId, version, status, reason, message,
                Optional.of("c1"), Optional.of("falcon-" + jobId), Optional.empty(), Optional.empty(),
                Optional.empty(), finished, status == Status.Aborted ? finished : Optional.empty());
    }
}
