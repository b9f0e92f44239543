package io.falcon.executor;

import io.falcon.executor.gke.NodePoolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed, validated executor settings. Built from a map of {@code falcon.executor.*} keys ({@link #fromMap}) or
 * from the environment ({@link #fromEnv}: each key upper-cased with '.' and '-' turned into '_', e.g.
 * {@code FALCON_EXECUTOR_KAFKA_BOOTSTRAP_SERVERS}). A bad value fails at start with an error naming the key.
 */
public record ExecutorConfig(
        String bootstrapServers,
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
        NodePoolSpec.ScaleDown scaleDown) {

    public static final String PREFIX = "falcon.executor.";
    public static final String BOOTSTRAP_SERVERS = PREFIX + "kafka.bootstrap-servers";
    public static final String GROUP_ID = PREFIX + "kafka.group-id";
    public static final String CREDENTIALS = PREFIX + "credentials";
    public static final String GKE_ENDPOINT = PREFIX + "gke.endpoint";
    public static final String GKE_PLAINTEXT = PREFIX + "gke.plaintext";
    public static final String COMPUTE_ENDPOINT = PREFIX + "compute.endpoint";
    public static final String NAMESPACE = PREFIX + "namespace";
    public static final String NODE_POOL_CREATE_TIMEOUT = PREFIX + "node-pool.create-timeout";
    public static final String POLL_INTERVAL = PREFIX + "poll-interval";
    public static final String IMAGE_PULL_GRACE = PREFIX + "image-pull-grace";
    public static final String INFORMER_RESYNC = PREFIX + "informer-resync";
    /** ttlSecondsAfterFinished of the Jobs Falcon creates: a second line of defence should a deletion be lost. */
    public static final String FINISHED_JOB_TTL = PREFIX + "job.ttl-after-finished";
    public static final String PRODUCER_NAME = PREFIX + "producer-name";
    public static final String WATCH_CLUSTER_REGISTRY = PREFIX + "watch-cluster-registry";
    public static final String VISIBILITY_GRACE = PREFIX + "node-pool.visibility-grace";
    public static final String INVENTORY_INTERVAL = PREFIX + "node-pool.inventory-interval";
    public static final String MAX_BACKOFF = PREFIX + "max-backoff";
    /** After this many failed deletions of a pool in a row, the error is appended to its job's Message. */
    public static final String DELETE_FAILURES_REPORTED = PREFIX + "node-pool.delete-failures-reported";
    public static final String SCALE_DOWN_RESERVATION = PREFIX + "node-pool.scale-down.reservation";
    public static final String SCALE_DOWN_ON_DEMAND = PREFIX + "node-pool.scale-down.on-demand";
    public static final String SCALE_DOWN_FLEX_START = PREFIX + "node-pool.scale-down.flex-start";

    public static final List<String> KEYS = List.of(BOOTSTRAP_SERVERS, GROUP_ID, CREDENTIALS, GKE_ENDPOINT,
            GKE_PLAINTEXT, COMPUTE_ENDPOINT, NAMESPACE, NODE_POOL_CREATE_TIMEOUT, POLL_INTERVAL, IMAGE_PULL_GRACE,
            INFORMER_RESYNC, FINISHED_JOB_TTL, PRODUCER_NAME, WATCH_CLUSTER_REGISTRY, VISIBILITY_GRACE,
            INVENTORY_INTERVAL, MAX_BACKOFF, DELETE_FAILURES_REPORTED, SCALE_DOWN_RESERVATION, SCALE_DOWN_ON_DEMAND, SCALE_DOWN_FLEX_START);

    public static final String DEFAULT_GKE_ENDPOINT = "container.googleapis.com:443";
    public static final String DEFAULT_COMPUTE_ENDPOINT = "https://compute.googleapis.com";

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

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
    }

    public ExecutorConfig {
        Objects.requireNonNull(bootstrapServers, BOOTSTRAP_SERVERS);
        Objects.requireNonNull(credentials, CREDENTIALS);
    }

    public static ExecutorConfig fromEnv(Map<String, String> env) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String key : KEYS) {
            String value = env.get(envName(key));
            if (value != null) {
                map.put(key, value);
            }
        }
        return fromMap(map);
    }

    public static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** Parses and validates; throws IllegalArgumentException naming every bad key. */
    public static ExecutorConfig fromMap(Map<String, String> raw) {
        Reader r = new Reader(raw);
        for (String key : raw.keySet()) {
            if (key.startsWith(PREFIX) && !KEYS.contains(key)) {
                r.errors.add(key + ": unknown setting (known: " + String.join(", ", KEYS) + ")");
            }
        }
        String bootstrap = r.string(BOOTSTRAP_SERVERS, null);
        if (bootstrap == null || bootstrap.isBlank()) {
            r.errors.add(BOOTSTRAP_SERVERS + ": required (host:port[,host:port])");
        }
        Credentials credentials = r.credentials();
        boolean none = credentials == Credentials.NONE;
        String gke = r.string(GKE_ENDPOINT, DEFAULT_GKE_ENDPOINT);
        if (gke.contains("://") || !gke.matches("[^:/\\s]+:\\d{1,5}")) {
            r.errors.add(GKE_ENDPOINT + ": expected host:port without scheme, got '" + gke + "'");
        }
        String compute = r.string(COMPUTE_ENDPOINT, DEFAULT_COMPUTE_ENDPOINT);
        if (!compute.matches("https?://[^/\\s]+") ) {
            r.errors.add(COMPUTE_ENDPOINT + ": expected http(s)://host[:port] without trailing slash, got '"
                    + compute + "'");
        }
        String namespace = r.string(NAMESPACE, "default");
        if (!DNS_LABEL.matcher(namespace).matches()) {
            r.errors.add(NAMESPACE + ": not a valid Kubernetes namespace name: '" + namespace + "'");
        }
        ExecutorConfig config = new ExecutorConfig(
                bootstrap == null ? "" : bootstrap,
                r.string(GROUP_ID, "falcon-executor"),
                credentials == null ? Credentials.GOOGLE_ADC : credentials,
                gke,
                r.bool(GKE_PLAINTEXT, none),
                compute,
                namespace,
                r.duration(NODE_POOL_CREATE_TIMEOUT, Duration.ofMinutes(10)),
                r.duration(POLL_INTERVAL, Duration.ofSeconds(10)),
                r.duration(IMAGE_PULL_GRACE, Duration.ofMinutes(2)),
                r.duration(INFORMER_RESYNC, Duration.ofMinutes(5)),
                r.duration(FINISHED_JOB_TTL, Duration.ofHours(24)),
                r.string(PRODUCER_NAME, "executor"),
                r.bool(WATCH_CLUSTER_REGISTRY, true),
                r.duration(VISIBILITY_GRACE, Duration.ofMinutes(2)),
                r.duration(INVENTORY_INTERVAL, Duration.ofSeconds(60)),
                r.duration(MAX_BACKOFF, Duration.ofMinutes(1)),
                r.integer(DELETE_FAILURES_REPORTED, 5, 1, 1000),
                new NodePoolSpec.ScaleDown(
                        r.duration(SCALE_DOWN_RESERVATION, NodePoolSpec.ScaleDown.DEFAULT.reservation()),
                        r.duration(SCALE_DOWN_ON_DEMAND, NodePoolSpec.ScaleDown.DEFAULT.onDemand()),
                        r.duration(SCALE_DOWN_FLEX_START, NodePoolSpec.ScaleDown.DEFAULT.flexStart())));
        if (!r.errors.isEmpty()) {
            throw new IllegalArgumentException("invalid executor configuration: " + String.join("; ", r.errors));
        }
        return config;
    }

    /** The settings for the fleet simulator: no credentials, plaintext gRPC, short timers. */
    public static Map<String, String> simulatorDefaults(String bootstrapServers, String gkeEndpoint,
            String computeEndpoint) {
        Map<String, String> map = new LinkedHashMap<>();
        map.put(BOOTSTRAP_SERVERS, bootstrapServers);
        map.put(CREDENTIALS, "none");
        map.put(GKE_ENDPOINT, gkeEndpoint);
        map.put(COMPUTE_ENDPOINT, computeEndpoint);
        map.put(POLL_INTERVAL, "200ms");
        return map;
    }

    /** Parses 500ms, 30s, 10m, 2h or an ISO-8601 duration such as PT10M. */
    public static Duration parseDuration(String text) {
        String trimmed = text.trim();
        Matcher m = SHORT_DURATION.matcher(trimmed);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        return Duration.parse(trimmed.toUpperCase(Locale.ROOT));
    }

    /** 10m, 90s, 1h30m: how durations appear in messages. */
    public static String formatDuration(Duration d) {
        long s = d.toSeconds();
        if (s == 0) {
            return d.toMillis() + "ms";
        }
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            b.append(s % 3600 / 60).append('m');
        }
        if (s % 60 != 0) {
            b.append(s % 60).append('s');
        }
        return b.toString();
    }

    private static final class Reader {
        final Map<String, String> raw;
        final List<String> errors = new ArrayList<>();

        Reader(Map<String, String> raw) {
            this.raw = raw;
        }

        String string(String key, String fallback) {
            String v = raw.get(key);
            return v == null || v.isBlank() ? fallback : v.trim();
        }

        boolean bool(String key, boolean fallback) {
            String v = string(key, null);
            if (v == null) {
                return fallback;
            }
            if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(v);
            }
            errors.add(key + ": expected true or false, got '" + v + "'");
            return fallback;
        }

        int integer(String key, int fallback, int min, int max) {
            String v = string(key, null);
            if (v == null) {
                return fallback;
            }
            try {
                int n = Integer.parseInt(v);
                if (n < min || n > max) {
                    errors.add(key + ": must be between " + min + " and " + max + ", got " + n);
                }
                return n;
            } catch (NumberFormatException e) {
                errors.add(key + ": expected an integer, got '" + v + "'");
                return fallback;
            }
        }

        Duration duration(String key, Duration fallback) {
            String v = string(key, null);
            if (v == null) {
                return fallback;
            }
            try {
                Duration d = parseDuration(v);
                if (d.isNegative() || d.isZero()) {
                    errors.add(key + ": must be positive, got '" + v + "'");
                    return fallback;
                }
                return d;
            } catch (RuntimeException e) {
                errors.add(key + ": expected a duration such as 500ms, 30s, 10m, 2h or PT10M, got '" + v + "'");
                return fallback;
            }
        }

        Credentials credentials() {
            String v = string(CREDENTIALS, Credentials.GOOGLE_ADC.wireName());
            for (Credentials c : Credentials.values()) {
                if (c.wireName().equals(v)) {
                    return c;
                }
            }
            errors.add(CREDENTIALS + ": expected google-adc or none, got '" + v + "'");
            return null;
        }
    }
}
