package io.falcon.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Falcon's metrics, one constant per name, so every component registers them the same way. Names are Micrometer
 * names; Prometheus sees them with '_' and a unit suffix (e.g. {@code falcon.dispatch.latency} ->
 * {@code falcon_dispatch_latency_seconds_bucket}). Every meter carries the tag {@code component}.
 *
 * <p>Gauges are "set" gauges: the component tells the current value (queue depth of (cluster, topology), ...) when
 * it changes, and {@link #forgetCluster(String)} drops the series of a cluster that is gone.
 */
public final class FalconMetrics {
    /** Timer, tags tpu_type, cluster: from the job's creation to its pod Running. */
    public static final String DISPATCH_LATENCY = "falcon.dispatch.latency";
    /** Timer, tags tpu_type, topology, outcome (Succeeded, Failed, Aborted): pods Running to the job's end. */
    public static final String JOB_DURATION = "falcon.job.duration";
    /** Timer, tags cluster, topology: the job's submission to the moment its queue gave it the slot. */
    public static final String QUEUE_WAIT = "falcon.queue.wait";
    /** Gauge, tags cluster, topology: jobs waiting in the (cluster, topology) queue. */
    public static final String QUEUE_DEPTH = "falcon.queue.depth";
    /** Gauge, tags cluster, reservation: free capacity (count - inUseCount) in hosts. */
    public static final String RESERVATION_REMAINING = "falcon.reservation.remaining";
    /** Gauge, tag cluster: falcon-managed node pools that exist. */
    public static final String ACTIVE_POOLS = "falcon.node.pools.active";
    /** Gauge, tag cluster: jobs in status Running. */
    public static final String RUNNING_JOBS = "falcon.jobs.running";
    /** Counter, tag reason (NodePoolTimeout, NodePoolFailed, JobSubmitFailed, JobFailed, Timeout, InvalidSpec). */
    public static final String FAILURES = "falcon.job.failures";

    /** Attempts that failed, by Reason, whose doing (category) and what came of it (outcome: retried or why not). */
    public static final String RETRIES = "falcon.job.retries";
    /** Counter, tags verdict (software, hardware, isolate, release), cluster. */
    public static final String FAULT_VERDICTS = "falcon.fault.verdicts";
    /** Gauge, tag cluster: devices currently isolated. */
    public static final String ISOLATED_DEVICES = "falcon.isolated.devices";
    /** Timer: one batched JDBC write of task statuses, commit included. */
    public static final String SINK_WRITE_LATENCY = "falcon.sink.write.latency";
    /** Distribution summary: task statuses per JDBC batch. */
    public static final String SINK_BATCH_SIZE = "falcon.sink.batch.size";
    /** Timer: from a status event's occurredAt to its commit in the jobs table. */
    public static final String SINK_LAG = "falcon.sink.lag";
    /** Jobs that took a node pool they did not create (seed section 5 reuse). */
    public static final String NODE_POOL_REUSE = "falcon.node.pool.reuse";
    /** Records a component could not decode or process, sent to falcon.dead-letter. */
    public static final String DEAD_LETTERS = "falcon.dead.letters";

    public static final String TAG_COMPONENT = "component";
    public static final String TAG_CLUSTER = "cluster";
    public static final String TAG_TOPOLOGY = "topology";
    public static final String TAG_TPU_TYPE = "tpu_type";
    public static final String TAG_RESERVATION = "reservation";
    public static final String TAG_REASON = "reason";
    public static final String TAG_VERDICT = "verdict";
    public static final String TAG_SOURCE = "source";
    public static final String TAG_STAGE = "stage";
    public static final String TAG_OUTCOME = "outcome";

    /** Every Falcon metric name, for documentation and tests. */
    public static final List<String> NAMES = List.of(
            DISPATCH_LATENCY,
            JOB_DURATION,
            QUEUE_WAIT,
            QUEUE_DEPTH,
            RESERVATION_REMAINING,
            ACTIVE_POOLS,
            RUNNING_JOBS,
            FAILURES,
            RETRIES,
            FAULT_VERDICTS,
            ISOLATED_DEVICES,
            SINK_WRITE_LATENCY,
            SINK_BATCH_SIZE,
            SINK_LAG,
            DEAD_LETTERS,
            NODE_POOL_REUSE);

    private final MeterRegistry registry;
    private final Map<GaugeKey, AtomicLong> gauges = new ConcurrentHashMap<>();
    /** fault verdict counters by cluster, then outcome (see {@link #faultVerdict}). */
    private final Map<String, Map<String, Counter>> faultVerdicts = new ConcurrentHashMap<>();

    /**
     * How many distinct cluster labels the fault metrics take: their cluster ids come from whoever writes
     * falcon.device-faults, so without a bound a collector could grow the label set (and every scrape) without end.
     * Clusters past the bound are counted under {@link #OTHER_CLUSTERS}.
     */
    public static final int MAX_FAULT_CLUSTER_LABELS = 256;

    public static final String OTHER_CLUSTERS = "_other";

    private final java.util.Set<String> faultClusterLabels = ConcurrentHashMap.newKeySet();

    /** The cluster label of a fault metric: the cluster id while fewer than the bound are labelled, else _other. */
    private String faultClusterLabel(String cluster) {
        if (faultClusterLabels.contains(cluster)) {
            return cluster;
        }
        synchronized (faultClusterLabels) {
            if (faultClusterLabels.size() < MAX_FAULT_CLUSTER_LABELS) {
                faultClusterLabels.add(cluster);
                return cluster;
            }
        }
        return OTHER_CLUSTERS;
    }

    public FalconMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * A Prometheus registry tagged with the component's name and bound to the JVM metrics (memory, GC, threads,
     * CPU, uptime). Kafka client metrics: bind micrometer's KafkaClientMetrics / KafkaStreamsMetrics to it.
     */
    public static PrometheusMeterRegistry newRegistry(String component) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags(TAG_COMPONENT, component);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public Timer dispatchLatency(String tpuType, String cluster) {
        return Timer.builder(DISPATCH_LATENCY)
                .description("Job creation to pod Running")
                .tags(TAG_TPU_TYPE, tpuType, TAG_CLUSTER, cluster)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofSeconds(1))
                .maximumExpectedValue(Duration.ofHours(6))
                .register(registry);
    }

    public Timer jobDuration(String tpuType, String topology, String outcome) {
        return Timer.builder(JOB_DURATION)
                .description("Pods Running to the job's end, by outcome")
                .tags(TAG_TPU_TYPE, tpuType, TAG_TOPOLOGY, topology, TAG_OUTCOME, outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofSeconds(1))
                .maximumExpectedValue(Duration.ofDays(7))
                .register(registry);
    }

    public Timer queueWait(String cluster, String topology) {
        return Timer.builder(QUEUE_WAIT)
                .description("Submission to the slot of the job's (cluster, topology) queue")
                .tags(TAG_CLUSTER, cluster, TAG_TOPOLOGY, topology)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofDays(2))
                .register(registry);
    }

    public void queueDepth(String cluster, String topology, long depth) {
        setGauge(
                QUEUE_DEPTH,
                "Jobs waiting per (cluster, topology) queue",
                Tags.of(TAG_CLUSTER, cluster, TAG_TOPOLOGY, topology),
                depth);
    }

    public void reservationRemaining(String cluster, String reservation, long hosts) {
        setGauge(
                RESERVATION_REMAINING,
                "Free reservation capacity (count - inUseCount) in hosts",
                Tags.of(TAG_CLUSTER, cluster, TAG_RESERVATION, reservation),
                hosts);
    }

    public void activePools(String cluster, long pools) {
        setGauge(ACTIVE_POOLS, "Falcon-managed node pools", Tags.of(TAG_CLUSTER, cluster), pools);
    }

    public void runningJobs(String cluster, long jobs) {
        setGauge(RUNNING_JOBS, "Jobs in status Running", Tags.of(TAG_CLUSTER, cluster), jobs);
    }

    /**
     * A cluster past the fault label bound has no gauge of its own (a gauge of several clusters would show only the
     * last one's count); its verdicts still count under _other.
     */
    public void isolatedDevices(String cluster, long devices) {
        String label = faultClusterLabel(cluster);
        if (label.equals(OTHER_CLUSTERS)) {
            return;
        }
        setGauge(ISOLATED_DEVICES, "Devices currently isolated", Tags.of(TAG_CLUSTER, label), devices);
    }

    public void failure(String reason) {
        Counter.builder(FAILURES)
                .description("Jobs that ended Failed, by reason")
                .tags(TAG_REASON, reason)
                .register(registry)
                .increment();
    }

    /** An attempt that failed and what came of it; every label takes a handful of values the scheduler names. */
    public void retry(String reason, String category, String outcome) {
        Counter.builder(RETRIES)
                .description("Failed attempts, by Reason, whose doing it was and whether the job runs again")
                .tags(TAG_REASON, reason, "category", category, "outcome", outcome)
                .register(registry)
                .increment();
    }

    public void faultVerdict(String verdict, String clusterId) {
        String cluster = faultClusterLabel(clusterId);
        // one call per fault on fault-streams' stream thread: the counter is looked up in two plain maps (clusters,
        // then the ten outcomes) instead of building its id (tags sorted, a registry lookup) every time
        Map<String, Counter> byVerdict = faultVerdicts.get(cluster);
        if (byVerdict == null) {
            byVerdict = faultVerdicts.computeIfAbsent(cluster, c -> new ConcurrentHashMap<>());
        }
        Counter counter = byVerdict.get(verdict);
        if (counter == null) {
            counter = byVerdict.computeIfAbsent(
                    verdict,
                    v -> Counter.builder(FAULT_VERDICTS)
                            .description("Fault verdicts, by kind")
                            .tags(TAG_VERDICT, v, TAG_CLUSTER, cluster)
                            .register(registry));
        }
        counter.increment();
    }

    public void nodePoolReuse(String cluster, String supplyMode) {
        Counter.builder(NODE_POOL_REUSE)
                .description("Jobs that took a node pool they did not create")
                .tags(TAG_CLUSTER, cluster, "supply_mode", supplyMode)
                .register(registry)
                .increment();
    }

    /** One record sent to the dead-letter topic: source topic, and stage (decode or process). */
    public void deadLetter(String source, String stage) {
        Counter.builder(DEAD_LETTERS)
                .description("Records sent to falcon.dead-letter, by source topic and stage")
                .tags(TAG_SOURCE, source, TAG_STAGE, stage)
                .register(registry)
                .increment();
    }

    public Timer sinkWriteLatency() {
        return Timer.builder(SINK_WRITE_LATENCY)
                .description("One batched JDBC write of task statuses")
                .publishPercentileHistogram()
                .register(registry);
    }

    public DistributionSummary sinkBatchSize() {
        return DistributionSummary.builder(SINK_BATCH_SIZE)
                .description("Task statuses per JDBC batch")
                .publishPercentileHistogram()
                .register(registry);
    }

    public Timer sinkLag() {
        return Timer.builder(SINK_LAG)
                .description("Status event occurredAt to its commit in the jobs table")
                .publishPercentileHistogram()
                .register(registry);
    }

    /** Removes every gauge series of a cluster that left the registry (deleted or offline). */
    public void forgetCluster(String cluster) {
        gauges.keySet().removeIf(key -> {
            if (cluster.equals(key.tags().stream()
                    .filter(t -> t.getKey().equals(TAG_CLUSTER))
                    .map(io.micrometer.core.instrument.Tag::getValue)
                    .findFirst()
                    .orElse(null))) {
                Gauge gauge = registry.find(key.name()).tags(key.tags()).gauge();
                if (gauge != null) {
                    registry.remove(gauge);
                }
                return true;
            }
            return false;
        });
    }

    private void setGauge(String name, String description, Tags tags, long value) {
        gauges.computeIfAbsent(new GaugeKey(name, tags), key -> {
                    AtomicLong holder = new AtomicLong();
                    Gauge.builder(name, holder, AtomicLong::doubleValue)
                            .description(description)
                            .tags(tags)
                            .register(registry);
                    return holder;
                })
                .set(value);
    }

    private record GaugeKey(String name, Tags tags) {}
}
