package io.falcon.embedded.containers;

import io.falcon.embedded.SharedInfra;
import org.apache.kafka.common.utils.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * MySQL 8.4 and Kafka in Docker (Testcontainers) for the mysql8 profile: production runs on MySQL while every other
 * test runs on the embedded MariaDB, so the end-to-end and CDC restart tests also run here, through Debezium's MySQL
 * connector. Started once per JVM; {@link #start()} points {@link SharedInfra#broker()} and {@link
 * SharedInfra#database()} at them. Needs a Docker daemon ({@link RequiresDocker} skips the tests without one).
 */
public final class Mysql8Containers {
    private static final Logger log = LoggerFactory.getLogger(Mysql8Containers.class);

    /** The production database's major version, as docker-compose.yml runs it. */
    public static final String MYSQL_IMAGE = "mysql:8.4";
    /**
     * The broker of docker-compose.yml: KRaft, at the version of the Kafka clients on the class path (kafka.version
     * in pom.xml, which DeploymentFilesTest holds docker-compose.yml's image to).
     */
    public static final String KAFKA_IMAGE = "apache/kafka:" + AppInfoParser.getVersion();

    private static final String ROOT_PASSWORD = "falcon";

    private static MySQLContainer<?> mysql;
    private static KafkaContainer kafka;

    private Mysql8Containers() {}

    /** Whether a Docker daemon answers (Testcontainers' own check). */
    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Starts both containers once per JVM (stopped when it exits) and points SharedInfra at them. */
    public static synchronized void start() {
        if (mysql != null) {
            return;
        }
        // Debezium's MySQL connector needs a row-based binlog with full row images; GTIDs are what production runs.
        MySQLContainer<?> db = new MySQLContainer<>(DockerImageName.parse(MYSQL_IMAGE))
                .withUsername("root")
                .withPassword(ROOT_PASSWORD)
                .withCommand(
                        "--server-id=1",
                        "--log-bin=mysql-bin",
                        "--binlog-format=ROW",
                        "--binlog-row-image=FULL",
                        "--gtid-mode=ON",
                        "--enforce-gtid-consistency=ON");
        KafkaContainer broker = new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE));
        db.start();
        broker.start();
        mysql = db;
        kafka = broker;
        Runtime.getRuntime().addShutdownHook(new Thread(Mysql8Containers::stop, "falcon-mysql8-containers-stop"));
        System.setProperty(SharedInfra.KAFKA_PROPERTY, broker.getBootstrapServers());
        System.setProperty(
                SharedInfra.DB_URL_PROPERTY,
                "jdbc:mysql://" + db.getHost() + ":" + db.getMappedPort(MySQLContainer.MYSQL_PORT));
        System.setProperty(SharedInfra.DB_USER_PROPERTY, "root");
        System.setProperty(SharedInfra.DB_PASSWORD_PROPERTY, ROOT_PASSWORD);
        log.info(
                "mysql8: {} at {} and {} at {}",
                MYSQL_IMAGE,
                System.getProperty(SharedInfra.DB_URL_PROPERTY),
                KAFKA_IMAGE,
                broker.getBootstrapServers());
    }

    private static synchronized void stop() {
        if (kafka != null) {
            kafka.stop();
        }
        if (mysql != null) {
            mysql.stop();
        }
    }
}
