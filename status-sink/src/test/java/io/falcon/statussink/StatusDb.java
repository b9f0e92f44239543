package io.falcon.statussink;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;

import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import io.falcon.testkit.builders.TaskStatusBuilder;
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
        try (Connection c = connect();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO jobs (id, actor, name, tpu_type, topology, spec, status) VALUES (?, 'a', 'n', 'v6e', '2x4', '{}', ?)")) {
            insert.setString(1, id);
            insert.setString(2, status);
            insert.executeUpdate();
        }
    }

    String column(String id, String column) throws SQLException {
        try (Connection c = connect();
                PreparedStatement select = c.prepareStatement("SELECT " + column + " FROM jobs WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** The jobs with a row in falcon_status_versions. */
    java.util.Set<String> versionedJobs() throws SQLException {
        java.util.Set<String> jobs = new java.util.TreeSet<>();
        try (Connection c = connect();
                ResultSet rows = c.createStatement().executeQuery("SELECT job_id FROM falcon_status_versions")) {
            while (rows.next()) {
                jobs.add(rows.getString(1));
            }
        }
        return jobs;
    }

    /** A connection whose session is at UTC, as the status-sink's are. */
    Connection connectAtUtc() throws SQLException {
        Connection c = connect();
        try (var statement = c.createStatement()) {
            statement.execute("SET time_zone = '+00:00'");
        }
        return c;
    }

    /** A transition as the scheduler sends it for a job dispatched to cluster c1, with its finish time if final. */
    static TaskStatus status(String jobId, long version, Status status, Optional<Reason> reason, String message) {
        TaskStatusBuilder transition = taskStatus(jobId)
                .version(version)
                .status(status)
                .reason(reason)
                .message(message)
                .clusterId("c1")
                .nodePoolName("falcon-" + jobId)
                .at(Instant.now());
        Instant finished = Instant.parse("2026-12-02T10:05:00.123Z");
        if (status.isTerminal()) {
            transition.finishedAt(finished);
        }
        if (status == Status.Aborted) {
            transition.abortedAt(finished);
        }
        return transition.build();
    }
}
