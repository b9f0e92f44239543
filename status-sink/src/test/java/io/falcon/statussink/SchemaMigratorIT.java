package io.falcon.statussink;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

class SchemaMigratorIT {
    @Test
    void createsTheClustersTableBesideAnExistingJobsTableAndIsIdempotent() throws Exception {
        StatusDb db = new StatusDb(false);
        var first = SchemaMigrator.migrate(db.url(), db.db.user(), db.db.password());
        var second = SchemaMigrator.migrate(db.url(), db.db.user(), db.db.password());
        assertThat(first.migrationsExecuted).isEqualTo(2);
        assertThat(second.migrationsExecuted).isZero();
        try (Connection c = db.connect();
                ResultSet columns = c.getMetaData().getColumns(db.name, null, "clusters", "default_reservation")) {
            assertThat(columns.next()).isTrue();
        }
    }
}
