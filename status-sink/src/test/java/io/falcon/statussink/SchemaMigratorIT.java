package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

class SchemaMigratorIT {
    @Test
    void createsTheClustersTableBesideAnExistingJobsTableAndIsIdempotent() throws Exception {
        StatusDb db = new StatusDb(false);
        var first = SchemaMigrator.migrate(db.url(), db.db.user(), db.db.password());
        var second = SchemaMigrator.migrate(db.url(), db.db.user(), db.db.password());
        assertThat(first.migrationsExecuted).isEqualTo(4);
        assertThat(second.migrationsExecuted).isZero();
        try (Connection c = db.connect();
                ResultSet columns = c.getMetaData().getColumns(db.name, null, "clusters", "default_reservation")) {
            assertThat(columns.next()).isTrue();
        }
    }

    @Test
    void versionsOfJobsAlreadyTerminalStartTheirRetentionAtTheUpgrade() throws Exception {
        StatusDb db = new StatusDb(false);
        Flyway.configure()
                .dataSource(db.url(), db.db.user(), db.db.password())
                .locations("classpath:db/migration")
                .table("falcon_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .target("2")
                .load()
                .migrate();
        db.insertJob("finished", "Succeeded");
        db.insertJob("running", "Running");
        try (Connection c = db.connect()) {
            c.createStatement()
                    .executeUpdate(
                            "INSERT INTO falcon_status_versions (job_id, version) VALUES ('finished', 3), ('running', 2)");
        }

        SchemaMigrator.migrate(db.url(), db.db.user(), db.db.password());

        try (Connection c = db.connect();
                ResultSet rows = c.createStatement()
                        .executeQuery(
                                "SELECT job_id, terminal_at IS NOT NULL FROM falcon_status_versions ORDER BY job_id")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("finished");
            assertThat(rows.getBoolean(2)).isTrue();
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("running");
            assertThat(rows.getBoolean(2)).isFalse();
        }
    }
}
