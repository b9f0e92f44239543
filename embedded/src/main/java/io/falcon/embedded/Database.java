package io.falcon.embedded;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A MySQL-protocol database server a test or the local demo runs on: the embedded MariaDB, or a server outside the JVM
 * ({@link ExternalDatabase}: MySQL 8.4 in Docker for the mysql8 profile, a developer's server). Each test or demo
 * instance works in a database of its own on it ({@link #createDatabase}).
 */
public interface Database {
    /** Which server it is: decides the Debezium connector cdc-ingest uses (falcon.cdc.database.flavor). */
    enum Flavor {
        MARIADB,
        MYSQL;

        /** The value of the falcon.cdc.database.flavor setting. */
        public String setting() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    Flavor flavor();

    String host();

    int port();

    /** A user that may create databases, read the binlog (REPLICATION SLAVE/CLIENT, RELOAD) and write tables. */
    String user();

    String password();

    /** The JDBC URL of {@code database} on this server (the driver matches the flavor). */
    String jdbcUrl(String database);

    /** A new connection to {@code database}; the caller closes it. */
    Connection connect(String database) throws SQLException;

    /** Creates {@code name} (utf8mb4) unless it exists. */
    void createDatabase(String name);
}
