package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.required;
import static io.falcon.events.config.Setting.withDefault;

/** Settings several components read: declared once here, listed by each component that reads them. */
public final class SharedKeys {
    public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS = required(
            "falcon.kafka.bootstrap-servers",
            SettingType.TEXT,
            Validator.any(),
            "Kafka bootstrap servers, host:port[,host:port...]");
    public static final Setting<Long> KAFKA_REPLICATION_FACTOR = withDefault(
            "falcon.kafka.replication-factor",
            SettingType.WHOLE,
            3L,
            Validator.between(1, Short.MAX_VALUE),
            "replication factor of the topics a component creates (Kafka Streams changelogs and repartition topics,"
                    + " cdc-ingest's offsets topic and missing output topics); 1 for a single-broker cluster");
    public static final Setting<String> DB_URL = required(
            "falcon.db.url",
            SettingType.TEXT,
            Validator.matching("jdbc:.+", "a JDBC URL (jdbc:...)"),
            "JDBC URL of the database holding the jobs and clusters tables, e.g. jdbc:mysql://host:3306/falcon");
    public static final Setting<String> DB_USER =
            required("falcon.db.user", SettingType.TEXT, Validator.any(), "database user");
    public static final Setting<String> DB_PASSWORD = withDefault(
            "falcon.db.password",
            SettingType.SECRET,
            "",
            Validator.any(),
            "database password (k8s: from the Secret falcon-db)");
    public static final Setting<Long> OPS_PORT = withDefault(
            "falcon.ops.port",
            SettingType.WHOLE,
            8080L,
            Validator.between(0, 65535),
            "port of /healthz, /readyz and /metrics (0: any free port)");

    public static final Setting<String> INSTANCE_ID = optional(
            "falcon.instance-id",
            SettingType.TEXT,
            "the host name and the process id",
            Validator.any(),
            "this instance's stable name in its consumer groups (static membership, io.falcon.events.GroupMembership):"
                    + " a restarted instance with the same name takes its partitions back at once; unique among the"
                    + " running instances of a component (k8s: the pod name)");

    public static final Setting<String> INSTALLATION = withDefault(
            "falcon.installation",
            SettingType.TEXT,
            io.falcon.events.ResourceNames.DEFAULT_INSTALLATION,
            Validator.matching("[a-z]([a-z0-9-]{0,18}[a-z0-9])?", "a DNS label of at most 20 characters"),
            "this Falcon's name on the edge clusters: its node pools, Kubernetes Jobs and pods carry the label"
                    + " falcon-installation with it, their names hash it, and it touches nothing without that label;"
                    + " the scheduler and the executor of one Falcon must have the same; two Falcons that share an"
                    + " edge cluster must differ");

    private SharedKeys() {}
}
