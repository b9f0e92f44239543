package io.falcon.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.Database;
import io.falcon.embedded.SharedInfra;
import io.falcon.embedded.containers.Mysql8Containers;
import io.falcon.embedded.containers.RequiresDocker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@link EndToEndIT} on MySQL 8.4 (row binlog, GTIDs; Debezium's MySQL connector, the MySQL JDBC driver, Falcon's
 * migrations on MySQL) and Kafka, both in Docker: the production database rather than the embedded MariaDB. Runs in
 * the mysql8 profile only; skipped without a Docker daemon.
 */
@ExtendWith(RequiresDocker.class)
@Testcontainers(disabledWithoutDocker = true)
class EndToEndMySql8IT extends EndToEndIT {
    /** Hides EndToEndIT.start: the same Falcon, on the containers. */
    @BeforeAll
    static void start() throws Exception {
        Mysql8Containers.start();
        assertThat(SharedInfra.database().flavor()).isEqualTo(Database.Flavor.MYSQL);
        startFalcon();
    }
}
