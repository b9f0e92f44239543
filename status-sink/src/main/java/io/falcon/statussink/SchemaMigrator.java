package io.falcon.statussink;

import io.falcon.events.security.DatabaseTls;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies Falcon's own schema (the clusters table) with Flyway. Falcon keeps its history in its own table and
 * baselines below V1 because the database already holds the upper components' jobs table.
 */
public final class SchemaMigrator {
    private SchemaMigrator() {}

    public static MigrateResult migrate(String jdbcUrl, String user, String password) {
        return migrate(new JdbcDataSource(jdbcUrl, user, password, DatabaseTls.DRIVER_DEFAULT));
    }

    /** As the status-sink applies it at its start: its database, user and TLS settings (falcon.db.*). */
    public static MigrateResult migrate(StatusSinkConfig config) {
        return migrate(JdbcDataSource.of(config));
    }

    /** Through a data source that carries the TLS settings (the status-sink's own). */
    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .table("falcon_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }
}
