package io.falcon.cdc;

import io.debezium.config.Configuration;
import io.debezium.config.Field;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mysql.MySqlConnectorConfig;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.Problem;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.security.KafkaAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/** The Debezium embedded engine configuration derived from a {@link CdcConfig}. */
public final class EngineProperties {
    private EngineProperties() {}

    public static Properties of(CdcConfig c) {
        Properties p = new Properties();
        // Kafka: the offset store's clients take the top-level properties, the schema history's producer and
        // consumer their prefixed ones; all of them get the same bootstrap servers and security.
        p.putAll(c.kafka().properties());
        p.putAll(c.kafka().properties("schema.history.internal.producer."));
        p.putAll(c.kafka().properties("schema.history.internal.consumer."));
        // a fixed group (Debezium's default is derived from internal names) so that its ACL can name it
        p.setProperty("schema.history.internal.consumer.group.id", KafkaAccess.schemaHistoryGroup(c.engineName()));
        // Engine
        p.setProperty("name", c.engineName());
        p.setProperty("connector.class", c.flavor().connectorClass());
        p.setProperty("tasks.max", "1");
        // Offsets in Kafka, never in memory or files, so a restarted instance resumes exactly.
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
        p.setProperty("offset.storage.topic", c.offsetsTopic());
        p.setProperty("offset.storage.partitions", "1");
        p.setProperty("offset.storage.replication.factor", Short.toString(c.replicationFactor()));
        p.setProperty(
                "offset.flush.interval.ms",
                Long.toString(c.offsetFlushInterval().toMillis()));
        p.setProperty("offset.flush.timeout.ms", "10000");
        // Retriable errors (the database going away) are retried by the connector and the engine, not fatal.
        p.setProperty("errors.max.retries", "-1");
        p.setProperty("errors.retry.delay.initial.ms", "300");
        p.setProperty("errors.retry.delay.max.ms", "5000");

        // Connector: database
        p.setProperty("database.hostname", c.dbHost());
        p.setProperty("database.port", Integer.toString(c.dbPort()));
        p.setProperty("database.user", c.dbUser());
        p.setProperty("database.password", c.dbPassword());
        p.setProperty("database.server.id", Long.toString(c.serverId()));
        p.setProperty("topic.prefix", c.topicPrefix());
        p.setProperty("database.include.list", c.dbName());
        p.setProperty("table.include.list", c.tableIncludeList());
        p.setProperty("snapshot.mode", "initial");
        // the snapshot reads the tables in table.include.list's order (clusters before jobs, see tableIncludeList),
        // not sorted by their row counts
        p.setProperty("snapshot.tables.order.by.row.count", "disabled");
        // No global read lock or table locks while snapshotting: the CDC user has only REPLICATION SLAVE / CLIENT and
        // SELECT on the two tables (deploy/mysql/20-falcon-users.sql). The cost: a schema change of jobs or clusters
        // during a snapshot would not be seen consistently; Falcon changes them only by migrations at a deploy.
        p.setProperty("snapshot.locking.mode", "none");
        // Debezium waits this long for new changes when its queue is empty; the default 500 ms would dominate the
        // INSERT -> event latency (falcon.cdc.debezium.poll.interval.ms overrides it).
        p.setProperty("poll.interval.ms", "50");
        p.setProperty("include.schema.changes", "false");
        p.setProperty("tombstones.on.delete", "false");
        p.setProperty("connect.keep.alive", "true");
        p.setProperty(
                "connect.keep.alive.interval.ms",
                Long.toString(c.keepAliveInterval().toMillis()));
        p.setProperty("connect.timeout.ms", "10000");
        if (!c.heartbeatInterval().isZero()) {
            p.setProperty(
                    "heartbeat.interval.ms", Long.toString(c.heartbeatInterval().toMillis()));
        }
        // Schema history in Kafka as well.
        p.setProperty("schema.history.internal", "io.debezium.storage.kafka.history.KafkaSchemaHistory");
        p.setProperty(
                "schema.history.internal.kafka.bootstrap.servers", c.kafka().bootstrapServers());
        p.setProperty("schema.history.internal.kafka.topic", c.schemaHistoryTopic());
        p.setProperty("schema.history.internal.store.only.captured.databases.ddl", "true");
        p.setProperty("schema.history.internal.store.only.captured.tables.ddl", "true");

        // TLS to the database (falcon.db.tls.*), server verification included
        p.putAll(c.dbTls()
                .debeziumProperties(
                        c.flavor() == CdcConfig.Flavor.MARIADB
                                ? DatabaseTls.DebeziumConnector.MARIADB
                                : DatabaseTls.DebeziumConnector.MYSQL));

        // Explicit pass-through wins.
        c.debezium().forEach(p::setProperty);
        return p;
    }

    /**
     * What the connector's own field validators refuse in these properties (a value derived from Falcon's settings
     * or passed through as falcon.cdc.debezium.*), checked without connecting to anything. The engine would refuse them
     * at every start ("Connector configuration is not valid") and restart for ever; cdc-ingest refuses them at once.
     */
    public static List<Problem> problems(CdcConfig c) {
        Configuration configuration = Configuration.from(of(c));
        Field.Set fields = c.flavor() == CdcConfig.Flavor.MARIADB
                ? MariaDbConnectorConfig.ALL_FIELDS
                : MySqlConnectorConfig.ALL_FIELDS;
        List<Problem> problems = new ArrayList<>();
        configuration.validate(
                fields,
                (field, value, problem) -> problems.add(new Problem(
                        field.name(),
                        "",
                        "Debezium's " + c.flavor().name().toLowerCase(Locale.ROOT) + " connector refuses "
                                + (field.name().contains("password") ? "the value" : "'" + value + "'") + ": "
                                + problem + " (from " + CdcIngestKeys.DEBEZIUM.prefix()
                                + field.name()
                                + " or the falcon.* setting it"
                                + " is derived from)")));
        return problems;
    }
}
