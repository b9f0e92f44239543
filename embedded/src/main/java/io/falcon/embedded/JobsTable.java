package io.falcon.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The reference DDL of the upper components' jobs table (docs/schema/jobs.sql), for the local demo and tests.
 * In production the upper components create that table; Falcon never does.
 */
public final class JobsTable {
    private static final String RESOURCE = "/io/falcon/embedded/schema/jobs.sql";

    private JobsTable() {}

    public static String ddl() {
        try (InputStream in = JobsTable.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE, e);
        }
    }

    public static void create(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(ddl().lines()
                    .filter(line -> !line.startsWith("--"))
                    .reduce("", (a, b) -> a + "\n" + b)
                    .replaceAll(";\\s*$", ""));
        }
    }
}
