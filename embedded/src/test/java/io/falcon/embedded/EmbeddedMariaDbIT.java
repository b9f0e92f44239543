package io.falcon.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedMariaDbIT {

    @Test
    void createsADatabaseAndReadsBackWhatWasInserted() throws Exception {
        EmbeddedMariaDb db = SharedInfra.mariaDb();
        String database = SharedInfra.uniqueName("roundtrip");
        db.createDatabase(database);

        try (Connection connection = DriverManager.getConnection(db.jdbcUrl(database), db.user(), db.password());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE job (id BIGINT PRIMARY KEY, name VARCHAR(100)) ENGINE=InnoDB");
            statement.execute("INSERT INTO job VALUES (1, 'tpu-batch-ü✓')");
            assertThat(singleString(statement, "SELECT name FROM job WHERE id = 1"))
                    .isEqualTo("tpu-batch-ü✓");
        }
    }

    @Test
    void binlogIsOnInRowFormatWithFullImages() throws Exception {
        EmbeddedMariaDb db = SharedInfra.mariaDb();
        try (Connection connection = db.connect("");
                Statement statement = connection.createStatement()) {
            assertThat(variable(statement, "log_bin")).isEqualTo("ON");
            assertThat(variable(statement, "binlog_format")).isEqualTo("ROW");
            assertThat(variable(statement, "binlog_row_image")).isEqualTo("FULL");
            assertThat(variable(statement, "server_id")).isEqualTo("1");
            assertThat(variable(statement, "character_set_server")).isEqualTo("utf8mb4");
            // What Debezium runs first: the application user must be allowed to read the binlog position.
            try (ResultSet status = statement.executeQuery("SHOW MASTER STATUS")) {
                assertThat(status.next()).isTrue();
                assertThat(status.getString("File")).startsWith("mysql-bin.");
            }
            try (ResultSet logs = statement.executeQuery("SHOW BINARY LOGS")) {
                assertThat(logs.next()).isTrue();
            }
        }
    }

    @Test
    void stopThenStartKeepsTheDataAndANewConnectionWorks(@TempDir Path dataDir) throws Exception {
        try (EmbeddedMariaDb db = EmbeddedMariaDb.launch(dataDir)) {
            db.createDatabase("fleet");
            try (Connection connection = db.connect("fleet");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE cluster (name VARCHAR(50) PRIMARY KEY)");
                statement.execute("INSERT INTO cluster VALUES ('edge-1')");
            }

            db.stop();
            assertThat(db.isRunning()).isFalse();
            assertThatThrownBy(() -> db.connect("fleet").close()).isInstanceOf(SQLException.class);

            db.start();
            try (Connection connection = db.connect("fleet");
                    Statement statement = connection.createStatement()) {
                assertThat(singleString(statement, "SELECT name FROM cluster")).isEqualTo("edge-1");
            }
        }

        // A new instance (as after a JVM restart) on the same data dir keeps the data too.
        try (EmbeddedMariaDb again = EmbeddedMariaDb.launch(dataDir);
                Connection connection = again.connect("fleet");
                Statement statement = connection.createStatement()) {
            assertThat(singleString(statement, "SELECT name FROM cluster")).isEqualTo("edge-1");
        }
    }

    @Test
    void failsFastWhenTheGivenPortIsInUse(@TempDir Path dataDir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> EmbeddedMariaDb.launch(dataDir, taken.getLocalPort()))
                    .hasMessageContaining("port " + taken.getLocalPort())
                    .hasMessageContaining("already in use");
        }
    }

    @Test
    void rejectsDatabaseNamesThatWouldNeedQuoting() {
        assertThatThrownBy(() -> SharedInfra.mariaDb().createDatabase("x`; DROP DATABASE mysql; --"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String variable(Statement statement, String name) throws SQLException {
        try (ResultSet rs = statement.executeQuery("SHOW VARIABLES LIKE '" + name + "'")) {
            assertThat(rs.next()).as("variable %s exists", name).isTrue();
            return rs.getString(2);
        }
    }

    private static String singleString(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getString(1);
        }
    }
}
