package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.Database;
import io.falcon.embedded.SharedInfra;
import io.falcon.embedded.containers.Mysql8Containers;
import io.falcon.embedded.containers.RequiresDocker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@link CdcRestartIT} on MySQL 8.4 (row binlog, GTIDs) through Debezium's MySQL connector, with Kafka in Docker:
 * the production database rather than the embedded MariaDB. Runs in the mysql8 profile only; skipped without a Docker
 * daemon.
 */
@ExtendWith(RequiresDocker.class)
@Testcontainers(disabledWithoutDocker = true)
class CdcRestartMySql8IT extends CdcRestartIT {
    @BeforeAll
    static void onMySql8() {
        Mysql8Containers.start();
        assertThat(SharedInfra.database().flavor()).isEqualTo(Database.Flavor.MYSQL);
    }
}
