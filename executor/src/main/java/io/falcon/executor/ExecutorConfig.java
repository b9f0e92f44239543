package io.falcon.executor;

import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.security.KafkaConnection;
import io.falcon.executor.gke.NodePoolSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Typed executor settings: a view of its catalog settings ({@link ExecutorKeys}), validated when it starts. */
public record ExecutorConfig(
        KafkaConnection kafka,
        String groupId,
        Credentials credentials,
        String gkeEndpoint,
        boolean gkePlaintext,
        String computeEndpoint,
        String namespace,
        Duration nodePoolCreateTimeout,
        Duration pollInterval,
        Duration imagePullGrace,
        Duration informerResync,
        Duration finishedJobTtl,
        String producerName,
        boolean watchClusterRegistry,
        Duration visibilityGrace,
        Duration inventoryInterval,
        Duration maxBackoff,
        int deleteFailuresReported,
        NodePoolSpec.ScaleDown scaleDown,
        int commandThreads,
        Duration logCopyInterval,
        Duration heartbeatInterval,
        String installation,
        io.falcon.executor.k8s.JobRenderer.Identity jobIdentity,
        int commandLanes,
        int trackerThreads) {

    /** How the executor authenticates to GKE, Compute and the edge Kubernetes APIs. */
    public enum Credentials {
        /** Google application default credentials (Workload Identity in production), with token refresh. */
        GOOGLE_ADC("google-adc"),
        /** No credentials: the fleet simulator. */
        NONE("none");

        private final String wireName;

        Credentials(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** The catalog's choice type has already refused any other word. */
        static Credentials of(String wireName) {
            return Arrays.stream(values())
                    .filter(c -> c.wireName.equals(wireName))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no credentials " + wireName));
        }
    }

    public ExecutorConfig {
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(jobIdentity, "jobIdentity");
    }

    /** Renders the Jobs (and their Service and NetworkPolicy) as these settings say. */
    public io.falcon.executor.k8s.JobRenderer jobRenderer() {
        return new io.falcon.executor.k8s.JobRenderer(
                namespace, finishedJobTtl, logCopyInterval, ownership(), jobIdentity);
    }

    /** What proves an object on the edge clusters is this installation's. */
    public io.falcon.executor.core.Ownership ownership() {
        return new io.falcon.executor.core.Ownership(installation);
    }

    /** Parses raw settings (keys or environment names); every problem is reported at once. */
    public static ExecutorConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(ExecutorKeys.COMPONENT, raw));
    }

    public static ExecutorConfig from(SettingValues values) {
        Credentials credentials = Credentials.of(values.get(ExecutorKeys.CREDENTIALS));
        return new ExecutorConfig(
                KafkaConnection.from(values),
                values.get(ExecutorKeys.GROUP_ID),
                credentials,
                values.get(ExecutorKeys.GKE_ENDPOINT),
                // the simulator speaks plaintext gRPC, Google's endpoints TLS
                values.find(ExecutorKeys.GKE_PLAINTEXT).orElse(credentials == Credentials.NONE),
                values.get(ExecutorKeys.COMPUTE_ENDPOINT),
                values.get(ExecutorKeys.NAMESPACE),
                values.get(ExecutorKeys.NODE_POOL_CREATE_TIMEOUT),
                values.get(ExecutorKeys.POLL_INTERVAL),
                values.get(ExecutorKeys.IMAGE_PULL_GRACE),
                values.get(ExecutorKeys.INFORMER_RESYNC),
                values.get(ExecutorKeys.FINISHED_JOB_TTL),
                values.get(ExecutorKeys.PRODUCER_NAME),
                values.get(ExecutorKeys.WATCH_CLUSTER_REGISTRY),
                values.get(ExecutorKeys.VISIBILITY_GRACE),
                values.get(ExecutorKeys.INVENTORY_INTERVAL),
                values.get(ExecutorKeys.MAX_BACKOFF),
                values.getInt(ExecutorKeys.DELETE_FAILURES_REPORTED),
                new NodePoolSpec.ScaleDown(
                        values.get(ExecutorKeys.SCALE_DOWN_RESERVATION),
                        values.get(ExecutorKeys.SCALE_DOWN_ON_DEMAND),
                        values.get(ExecutorKeys.SCALE_DOWN_FLEX_START)),
                values.getInt(ExecutorKeys.COMMAND_THREADS),
                values.get(ExecutorKeys.LOG_COPY_INTERVAL),
                values.get(ExecutorKeys.HEARTBEAT_INTERVAL),
                values.get(SharedKeys.INSTALLATION),
                io.falcon.executor.k8s.JobRenderer.Identity.of(values.get(ExecutorKeys.JOB_IDENTITY)),
                values.getInt(ExecutorKeys.COMMAND_LANES),
                values.getInt(ExecutorKeys.TRACKER_THREADS));
    }

    /** The settings for the fleet simulator: no credentials, plaintext gRPC, short timers. */
    public static Map<String, String> simulatorDefaults(
            String bootstrapServers, String gkeEndpoint, String computeEndpoint) {
        Map<String, String> map = new LinkedHashMap<>();
        map.put(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), bootstrapServers);
        map.put(ExecutorKeys.CREDENTIALS.key(), Credentials.NONE.wireName());
        map.put(ExecutorKeys.GKE_ENDPOINT.key(), gkeEndpoint);
        map.put(ExecutorKeys.COMPUTE_ENDPOINT.key(), computeEndpoint);
        map.put(ExecutorKeys.POLL_INTERVAL.key(), "200ms");
        return map;
    }
}
