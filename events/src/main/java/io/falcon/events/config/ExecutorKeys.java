package io.falcon.events.config;

import static io.falcon.events.config.Setting.optional;
import static io.falcon.events.config.Setting.withDefault;

import java.time.Duration;
import java.util.List;

/** The settings of the executor. */
public final class ExecutorKeys {
    public static final Setting<String> GROUP_ID = withDefault(
            "falcon.executor.kafka.group-id",
            SettingType.TEXT,
            "falcon-executor",
            Validator.any(),
            "consumer group of falcon.executor.commands");
    public static final Setting<String> CREDENTIALS = withDefault(
            "falcon.executor.credentials",
            SettingType.Choice.of("google-adc", "none"),
            "google-adc",
            Validator.any(),
            "google-adc: application default credentials (Workload Identity), with token refresh; none: fleet-sim");
    public static final Setting<String> GKE_ENDPOINT = withDefault(
            "falcon.executor.gke.endpoint",
            SettingType.TEXT,
            "container.googleapis.com:443",
            Validator.matching("[^:/\\s]+:\\d{1,5}", "host:port without a scheme"),
            "GKE ClusterManager gRPC endpoint");
    public static final Setting<Boolean> GKE_PLAINTEXT = optional(
            "falcon.executor.gke.plaintext",
            SettingType.BOOLEAN,
            "true when credentials is none, else false",
            Validator.any(),
            "gRPC without TLS (fleet-sim)");
    public static final Setting<String> COMPUTE_ENDPOINT = withDefault(
            "falcon.executor.compute.endpoint",
            SettingType.TEXT,
            "https://compute.googleapis.com",
            Validator.matching("https?://[^/\\s]+", "http(s)://host[:port] without a trailing slash"),
            "Compute REST endpoint (reservations)");
    public static final Setting<String> NAMESPACE = withDefault(
            "falcon.executor.namespace",
            SettingType.TEXT,
            "default",
            Validator.matching("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", "a Kubernetes namespace name"),
            "namespace of the Jobs on the edge clusters");
    public static final Setting<Duration> NODE_POOL_CREATE_TIMEOUT = timer(
            "node-pool.create-timeout",
            Duration.ofMinutes(10),
            "a pool not RUNNING this long after its creation fails NodePoolTimeout");
    public static final Setting<Duration> POLL_INTERVAL =
            timer("poll-interval", Duration.ofSeconds(10), "how often a long GKE operation is polled");
    public static final Setting<Duration> IMAGE_PULL_GRACE = timer(
            "image-pull-grace",
            Duration.ofMinutes(2),
            "how long a pod may fail to pull its image, counted from when it was bound to its node, before the job"
                    + " fails");
    public static final Setting<Duration> INFORMER_RESYNC =
            timer("informer-resync", Duration.ofMinutes(5), "resync period of the Job and Pod informers");
    public static final Setting<Duration> FINISHED_JOB_TTL = timer(
            "job.ttl-after-finished",
            Duration.ofHours(24),
            "ttlSecondsAfterFinished of the Jobs Falcon creates: a second line of defence should a deletion be lost");
    public static final Setting<Duration> LOG_COPY_INTERVAL = timer(
            "job.log-copy-interval",
            Duration.ofSeconds(30),
            "how often a running pod's log (written to a local emptyDir) is copied whole to"
                    + " gs://BUCKET/logs/JOB_ID/POD.log: Cloud Storage FUSE makes a written file visible only when it is"
                    + " closed, so a log written there directly would appear only when the job ends");
    public static final Setting<String> JOB_IDENTITY = withDefault(
            "falcon.executor.job.identity",
            SettingType.Choice.of("cluster", "actor"),
            "cluster",
            Validator.any(),
            "who a job's pods are to Google: cluster = the clusters row's k8s_service_account (or the namespace's"
                    + " default), with the whole cluster bucket at /gcs; actor = a Kubernetes service account per"
                    + " actor, falcon-actor-<head>-<hash> (which must exist: docs/deploy.md), with only the actor's"
                    + " folder gs://BUCKET/actors/<that name>/ at /gcs, so that an IAM grant on that prefix keeps each"
                    + " actor's logs and files its own");
    public static final Setting<String> PRODUCER_NAME = withDefault(
            "falcon.executor.producer-name",
            SettingType.TEXT,
            "executor",
            Validator.any(),
            "the producer named in the events it sends");
    public static final Setting<Boolean> WATCH_CLUSTER_REGISTRY = withDefault(
            "falcon.executor.watch-cluster-registry",
            SettingType.BOOLEAN,
            true,
            Validator.any(),
            "read falcon.cdc.clusters so every cluster is inventoried and watched after a restart");
    public static final Setting<Duration> VISIBILITY_GRACE = timer(
            "node-pool.visibility-grace",
            Duration.ofMinutes(2),
            "how long a just-created (flex-start) pool may be invisible to GKE's get");
    public static final Setting<Duration> INVENTORY_INTERVAL = timer(
            "node-pool.inventory-interval",
            Duration.ofSeconds(60),
            "how often this installation's pools and Jobs (by label) are inventoried per cluster");
    public static final Setting<Duration> HEARTBEAT_INTERVAL = timer(
            "heartbeat-interval",
            Duration.ofSeconds(10),
            "how often the executor evaluates every Job of every cluster it watches again and then tells the scheduler"
                    + " (a heartbeat on every partition of falcon.executor.events) how far each cluster is observed:"
                    + " the scheduler's deadlines wait for it, so a deadline fires up to this much later");
    public static final Setting<Duration> MAX_BACKOFF =
            timer("max-backoff", Duration.ofMinutes(1), "longest wait between retries of a failing API call");
    public static final Setting<Long> COMMAND_THREADS = withDefault(
            "falcon.executor.command-threads",
            SettingType.WHOLE,
            1L,
            Validator.between(1, 64),
            "command loops, each its own consumer of falcon.executor.commands in the executor's group: a command"
                    + " partition (the commands of a cluster, in order) is carried out by one loop, so up to as many"
                    + " partitions as loops progress at once; each loop still commits every command before the next");
    public static final Setting<Long> COMMAND_LANES = withDefault(
            "falcon.executor.command-lanes",
            SettingType.WHOLE,
            64L,
            Validator.between(1, 256),
            "commands of one poll carried out at once by a command loop: commands of different node pools, Kubernetes"
                    + " Jobs and tasks run side by side, one resource's stay in order, and the loop commits them only"
                    + " once all are done (1: one after another)");
    public static final Setting<Long> TRACKER_THREADS = withDefault(
            "falcon.executor.tracker-threads",
            SettingType.WHOLE,
            256L,
            Validator.between(1, 2048),
            "threads that step node-pool creations and deletions (each due pool on its own, a command's first step"
                    + " too, so neither a slow GKE call nor the command loop waits for another pool's); each step"
                    + " mostly waits on GKE, so at real latencies they bound how many pools progress at once (256:"
                    + " 60 jobs/s at 300 ms a call, bench/executor-throughput); idle threads end after a minute");
    public static final Setting<Long> DELETE_FAILURES_REPORTED = withDefault(
            "falcon.executor.node-pool.delete-failures-reported",
            SettingType.WHOLE,
            5L,
            Validator.between(1, 1000),
            "failed deletions of a pool in a row before NodePoolDeleteFailing (the retries go on)");
    public static final Setting<Duration> SCALE_DOWN_RESERVATION = timer(
            "node-pool.scale-down.reservation",
            Duration.ofMinutes(10),
            "autoscaler scale-down-unneeded time of a reservation pool");
    public static final Setting<Duration> SCALE_DOWN_ON_DEMAND = timer(
            "node-pool.scale-down.on-demand",
            Duration.ofMinutes(10),
            "autoscaler scale-down-unneeded time of an on-demand pool");
    public static final Setting<Duration> SCALE_DOWN_FLEX_START = timer(
            "node-pool.scale-down.flex-start",
            Duration.ofHours(6),
            "autoscaler scale-down-unneeded time of a flex-start pool (capacity is scarce)");

    public static final Component COMPONENT = new Component(
            "executor",
            "Carries out commands against GKE, Compute and the edge Kubernetes APIs.",
            KafkaSecurityKeys.after(List.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS,
                    SharedKeys.OPS_PORT,
                    SharedKeys.INSTANCE_ID,
                    SharedKeys.INSTALLATION,
                    GROUP_ID,
                    CREDENTIALS,
                    GKE_ENDPOINT,
                    GKE_PLAINTEXT,
                    COMPUTE_ENDPOINT,
                    NAMESPACE,
                    NODE_POOL_CREATE_TIMEOUT,
                    POLL_INTERVAL,
                    IMAGE_PULL_GRACE,
                    INFORMER_RESYNC,
                    FINISHED_JOB_TTL,
                    LOG_COPY_INTERVAL,
                    JOB_IDENTITY,
                    PRODUCER_NAME,
                    WATCH_CLUSTER_REGISTRY,
                    VISIBILITY_GRACE,
                    INVENTORY_INTERVAL,
                    COMMAND_LANES,
                    TRACKER_THREADS,
                    HEARTBEAT_INTERVAL,
                    MAX_BACKOFF,
                    DELETE_FAILURES_REPORTED,
                    COMMAND_THREADS,
                    SCALE_DOWN_RESERVATION,
                    SCALE_DOWN_ON_DEMAND,
                    SCALE_DOWN_FLEX_START)),
            List.of(KafkaSecurityKeys.CLIENT),
            KafkaSecurityKeys.rulesAfter(List.of()));

    private ExecutorKeys() {}

    private static Setting<Duration> timer(String name, Duration defaultValue, String description) {
        return withDefault(
                "falcon.executor." + name, SettingType.DURATION, defaultValue, Validator.positive(), description);
    }
}
