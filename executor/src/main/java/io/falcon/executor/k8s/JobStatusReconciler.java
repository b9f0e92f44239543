package io.falcon.executor.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.Mdc;
import io.falcon.executor.core.JobReports;
import io.falcon.executor.core.JobView;
import io.falcon.executor.core.PodView;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per edge cluster, informers on the Jobs and Pods labelled managed-by=falcon. Each change (and a periodic re-check,
 * for the image-pull grace) re-derives the job's state from the objects themselves and reports JobRunning,
 * JobSucceeded or JobFailed once per job per process. The task's identity comes from the Job's annotations, so
 * nothing needs to be remembered across a restart (a restart may report a state again; downstream drops it).
 */
public final class JobStatusReconciler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobStatusReconciler.class);

    private final EdgeClusterClients clusters;
    private final String namespace;
    private final EventSink sink;
    private final Clock clock;
    private final Duration resync;
    private final JobReports reports;
    /** Per GKE cluster (projects/P/locations/L/clusters/N): a moved clusters row has its old and its new one. */
    private final Map<String, Watched> watched = new ConcurrentHashMap<>();
    /**
     * GKE clusters that were watched and that GKE no longer knows (deleted): reported gone again at each inventory
     * while GKE still answers NOT_FOUND, and watched again once it knows one of that name.
     */
    private final Map<String, ClusterTarget> gone = new ConcurrentHashMap<>();

    private final Events events;

    private final ScheduledFuture<?> recheck;
    private final ScheduledFuture<?> inventory;

    private record Watched(
            ClusterTarget cluster,
            SharedIndexInformer<Job> jobs,
            SharedIndexInformer<Pod> pods,
            SharedIndexInformer<Node> nodes) {}

    /** Per GKE cluster, since when its informers have been watching without a gap (for the heartbeats). */
    private final Map<String, java.time.Instant> observingSince = new ConcurrentHashMap<>();

    /** Told (cluster, node pool) when a node of a falcon-* pool turns Ready; see {@link #onNodeReady}. */
    private volatile java.util.function.BiConsumer<ClusterTarget, String> nodeReady = (cluster, pool) -> {};

    /**
     * @param inventoryInterval how often the Falcon Jobs of every watched cluster are reported (JobInventory), for
     *     the scheduler's sweep of Jobs whose task ended or is unknown
     */
    private final io.falcon.executor.core.Ownership ownership;

    public JobStatusReconciler(
            EdgeClusterClients clusters,
            String namespace,
            EventSink sink,
            Events events,
            Clock clock,
            Duration imagePullGrace,
            Duration resync,
            ScheduledExecutorService scheduler,
            Duration recheckInterval,
            Duration inventoryInterval,
            io.falcon.executor.core.Ownership ownership) {
        this.ownership = ownership;
        this.clusters = clusters;
        this.namespace = namespace;
        this.sink = sink;
        this.clock = clock;
        this.resync = resync;
        this.reports = new JobReports(events, imagePullGrace);
        this.events = events;
        clusters.onChange(this::clusterChanged);
        long ms = recheckInterval.toMillis();
        this.recheck = scheduler.scheduleWithFixedDelay(this::recheckAll, ms, ms, TimeUnit.MILLISECONDS);
        long inv = inventoryInterval.toMillis();
        this.inventory = scheduler.scheduleWithFixedDelay(this::inventoryAll, inv, inv, TimeUnit.MILLISECONDS);
    }

    /** Starts watching the cluster if not yet watched. Idempotent; safe from any thread. */
    public void watch(ClusterTarget cluster) {
        if (watched.containsKey(cluster.resourceName())) {
            return;
        }
        synchronized (this) {
            if (watched.containsKey(cluster.resourceName())) {
                return;
            }
            KubernetesClient client = clusters.client(cluster);
            long resyncMs = resync.toMillis();
            SharedIndexInformer<Job> jobs = client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(namespace)
                    .withLabel(FalconLabels.MANAGED_BY, FalconLabels.MANAGED_BY_VALUE)
                    .withLabel(FalconLabels.INSTALLATION, ownership.installation())
                    .runnableInformer(resyncMs);
            SharedIndexInformer<Pod> pods = client.pods()
                    .inNamespace(namespace)
                    .withLabel(FalconLabels.MANAGED_BY, FalconLabels.MANAGED_BY_VALUE)
                    .withLabel(FalconLabels.INSTALLATION, ownership.installation())
                    .runnableInformer(resyncMs);
            // Nodes of every pool (the GKE pool label; a falcon-* prefix cannot be selected): a pool's last node
            // turning Ready steps its creation at once instead of at the next poll (up to the poll interval later).
            SharedIndexInformer<Node> nodes =
                    client.nodes().withLabel(KubernetesEdgeApi.NODE_POOL_LABEL).runnableInformer(resyncMs);
            Watched w = new Watched(cluster, jobs, pods, nodes);
            jobs.addEventHandler(handler(w, job -> job.getMetadata().getName(), true));
            pods.addEventHandler(handler(w, JobStatusReconciler::jobNameOf, false));
            nodes.addEventHandler(nodeHandler(w));
            watched.put(cluster.resourceName(), w);
            jobs.start();
            pods.start();
            nodes.start();
            log.info(
                    "watching jobs and pods with {} on cluster {} ({})",
                    ownership.selector(),
                    cluster.clusterId(),
                    cluster.resourceName());
        }
    }

    /** Who is told when a node of a falcon-* node pool turns Ready (the node-pool side of the executor). */
    public void onNodeReady(java.util.function.BiConsumer<ClusterTarget, String> listener) {
        this.nodeReady = listener;
    }

    private ResourceEventHandler<Node> nodeHandler(Watched w) {
        ClusterTarget cluster = w.cluster;
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                if (KubernetesEdgeApi.isReady(node)) {
                    tell(node);
                }
            }

            @Override
            public void onUpdate(Node before, Node after) {
                if (KubernetesEdgeApi.isReady(after) && !KubernetesEdgeApi.isReady(before)) {
                    tell(after);
                }
            }

            @Override
            public void onDelete(Node node, boolean unknownFinalState) {}

            private void tell(Node node) {
                java.util.Map<String, String> labels = node.getMetadata().getLabels();
                String pool = labels == null ? null : labels.get(KubernetesEdgeApi.NODE_POOL_LABEL);
                // a node of one of this installation's pools: they carry its labels (the pool's node labels)
                if (pool != null && FalconLabels.ownedBy(labels, ownership.installation())) {
                    try {
                        nodeReady.accept(cluster, pool);
                    } catch (RuntimeException e) {
                        log.warn(
                                "node pool {} on cluster {}: reacting to a Ready node failed",
                                pool,
                                cluster.clusterId(),
                                e);
                    }
                    // Jobs whose pods wait for this pool's nodes (flex-start) learn at once that the wait is over.
                    for (Job job : w.jobs.getStore().list()) {
                        if (Fabric8Views.nodePool(job).filter(pool::equals).isPresent()) {
                            evaluateSafely(w, job.getMetadata().getName());
                        }
                    }
                }
            }
        };
    }

    /** The clusters rows whose GKE clusters are watched (a moved row has its old and new one), for tests. */
    public List<ClusterTarget> watchedTargets() {
        return watched.values().stream().map(Watched::cluster).toList();
    }

    /** Whether the GKE cluster the target names is watched. */
    public boolean isWatching(ClusterTarget cluster) {
        return watched.containsKey(cluster.resourceName());
    }

    private <T extends HasMetadata> ResourceEventHandler<T> handler(
            Watched w, java.util.function.Function<T, String> jobName, boolean isJob) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                evaluateSafely(w, jobName.apply(obj));
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                evaluateSafely(w, jobName.apply(newObj));
                if (!isJob) {
                    podsGoneSafely(w, jobName.apply(newObj));
                }
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                if (isJob && obj instanceof Job job && job.getMetadata().getUid() != null) {
                    goneSafely(w, job, deletedFinalStateUnknown);
                }
                podsGoneSafely(w, jobName.apply(obj));
            }
        };
    }

    /**
     * A watched cluster's informers cannot keep their watch (its API server does not answer: the control plane
     * moved, rotated its CA, or the cluster was deleted): GKE is asked where it is now, at most once per refresh
     * interval; what it answers comes back through {@link #clusterChanged}.
     */
    private void checkWatches() {
        for (Watched w : watched.values()) {
            try {
                if (w.jobs.hasSynced() && (!w.jobs.isWatching() || !w.pods.isWatching())) {
                    clusters.refresh(w.cluster);
                }
            } catch (RuntimeException e) {
                log.warn("checking the watches of cluster {} failed: {}", w.cluster.clusterId(), e.getMessage());
            }
        }
    }

    /**
     * The cluster's endpoint or CA changed, or it was created again (a new client is in place): its informers start
     * again on it; what was created in a cluster deleted since is gone (ClusterGone). The cluster is gone: its
     * informers stop, and it is reported gone, which ends the jobs that ran there.
     */
    void clusterChanged(ClusterTarget cluster, EdgeClusterClients.Refresh change) {
        Watched old;
        synchronized (this) {
            old = watched.remove(cluster.resourceName());
        }
        if (old != null) {
            stop(old);
        }
        ClusterTarget target = old == null ? cluster : old.cluster;
        switch (change) {
            case GONE -> {
                gone.put(target.resourceName(), target);
                reportGone(target, "GKE answers NOT_FOUND for the cluster");
            }
            case RECREATED -> {
                reportGone(target, "GKE knows a new cluster of that name (another id): the old one was deleted");
                watchSafely(target);
            }
            case MOVED -> watchSafely(target);
            default -> {}
        }
    }

    private void reportGone(ClusterTarget cluster, String why) {
        try (var ignored = Mdc.of("cluster", cluster.clusterId())) {
            log.warn("GKE cluster {} is gone: {}", cluster.resourceName(), why);
        }
        sink.emit(events.clusterGone(cluster, why));
    }

    private void watchSafely(ClusterTarget cluster) {
        try {
            watch(cluster);
        } catch (RuntimeException e) {
            log.warn("cannot watch cluster {} again yet: {}", cluster.resourceName(), e.getMessage());
        }
    }

    private static void stop(Watched w) {
        w.jobs.stop();
        w.pods.stop();
        w.nodes.stop();
    }

    private void recheckAll() {
        checkWatches();
        for (Watched w : watched.values()) {
            for (Job job : w.jobs.getStore().list()) {
                evaluateSafely(w, job.getMetadata().getName());
            }
        }
    }

    private void evaluateSafely(Watched w, String jobName) {
        if (jobName == null) {
            return;
        }
        try {
            evaluate(w, jobName);
        } catch (RuntimeException e) {
            log.warn("evaluating job {} on cluster {} failed", jobName, w.cluster.clusterId(), e);
        }
    }

    /**
     * A Job of the cluster was deleted: its end if it had finished, else that it was deleted before it finished
     * ({@link JobReports#gone}). The scheduler acts on the latter only for a job that still counts on its Job, so
     * Falcon's own deletions (abort, deadline, cleanup) change nothing.
     */
    private void goneSafely(Watched w, Job job, boolean finalStateUnknown) {
        String jobName = job.getMetadata().getName();
        try {
            gone(w, job, finalStateUnknown);
        } catch (RuntimeException e) {
            log.warn("reporting the deleted job {} on cluster {} failed", jobName, w.cluster.clusterId(), e);
        }
    }

    private synchronized void gone(Watched w, Job job, boolean finalStateUnknown) {
        String jobName = job.getMetadata().getName();
        JobView view = Fabric8Views.job(job);
        List<PodView> pods = w.pods.getStore().list().stream()
                .filter(p -> jobName.equals(jobNameOf(p)))
                .map(Fabric8Views::pod)
                .toList();
        reports.gone(w.cluster, view, pods, finalStateUnknown, clock.instant()).ifPresent(event -> {
            try (var ignored = Mdc.of("job", event.jobId(), "cluster", event.clusterId(), "k8sJob", jobName)) {
                log.info(
                        "job deleted, last seen {}: {}",
                        view.finished() ? "finished" : "unfinished",
                        event.getClass().getSimpleName());
            }
            sink.emit(event);
        });
    }

    /**
     * A deleted Job whose pods the cache no longer holds unfinished (the last terminating one went): JobDeleted at
     * once, so that the scheduler hands its pool on without waiting for its next re-sent deletion.
     */
    private void podsGoneSafely(Watched w, String jobName) {
        if (jobName == null) {
            return;
        }
        try {
            long unfinished = w.pods.getStore().list().stream()
                    .filter(p -> jobName.equals(jobNameOf(p)))
                    .map(Fabric8Views::pod)
                    .filter(JobReports::unfinished)
                    .count();
            reports.podsGone(w.cluster, jobName, unfinished).ifPresent(event -> {
                try (var ignored = Mdc.of("job", event.jobId(), "cluster", event.clusterId(), "k8sJob", jobName)) {
                    log.info("job and its pods gone: JobDeleted");
                }
                sink.emit(event);
            });
        } catch (RuntimeException e) {
            log.warn(
                    "looking at the pods of the deleted job {} on cluster {} failed",
                    jobName,
                    w.cluster.clusterId(),
                    e);
        }
    }

    private synchronized void evaluate(Watched w, String jobName) {
        Job job = w.jobs.getStore().getByKey(namespace + "/" + jobName);
        if (job == null) {
            return;
        }
        JobView view = Fabric8Views.job(job);
        // the cheap label look-up first: converting every pod of the cluster for every Job evaluated (each informer
        // event, and every Job at each re-check) cost O(Jobs x pods) per re-check, most of the executor's CPU
        List<PodView> pods = w.pods.getStore().list().stream()
                .filter(p -> jobName.equals(jobNameOf(p)))
                .map(Fabric8Views::pod)
                .filter(p -> p.belongsTo(view))
                .toList();
        reports.evaluate(w.cluster, view, pods, pool -> nodeCount(w, pool), clock.instant())
                .ifPresent(event -> {
                    try (var ignored = Mdc.of("job", event.jobId(), "cluster", event.clusterId(), "k8sJob", jobName)) {
                        log.info("job observed: {}", event.getClass().getSimpleName());
                    }
                    sink.emit(event);
                });
    }

    /** The pool's nodes as the node informer's cache has them; none before the cache has synced. */
    private static java.util.Optional<io.falcon.executor.core.EdgeApi.NodeCount> nodeCount(Watched w, String pool) {
        if (!w.nodes.hasSynced()) {
            return java.util.Optional.empty();
        }
        List<Node> nodes = w.nodes.getStore().list().stream()
                .filter(n -> n.getMetadata().getLabels() != null
                        && pool.equals(n.getMetadata().getLabels().get(KubernetesEdgeApi.NODE_POOL_LABEL)))
                .toList();
        return java.util.Optional.of(KubernetesEdgeApi.count(nodes));
    }

    /**
     * Reports the Falcon Jobs of every watched cluster whose informers have synced (an unsynced cache would make
     * present Jobs look absent, and the scheduler would take their deletion as confirmed), with the deleted ones
     * whose pods still terminate.
     */
    public void inventoryAll() {
        for (ClusterTarget cluster : List.copyOf(gone.values())) {
            // still gone (reported again, in case the report was lost), or back under that name (watched again)
            try {
                clusters.client(cluster);
                gone.remove(cluster.resourceName());
                watchSafely(cluster);
            } catch (RuntimeException e) {
                if (io.falcon.executor.gke.GkeErrors.is(e, com.google.api.gax.rpc.StatusCode.Code.NOT_FOUND)) {
                    reportGone(cluster, "GKE answers NOT_FOUND for the cluster");
                }
            }
        }
        for (Watched w : watched.values()) {
            try {
                if (w.jobs.hasSynced() && w.pods.hasSynced()) {
                    List<JobView> jobs = w.jobs.getStore().list().stream()
                            .map(Fabric8Views::job)
                            .toList();
                    List<PodView> pods = w.pods.getStore().list().stream()
                            .map(Fabric8Views::pod)
                            .toList();
                    sink.emit(reports.inventory(w.cluster, jobs, pods));
                }
            } catch (RuntimeException e) {
                log.warn("job inventory of cluster {} failed: {}", w.cluster.clusterId(), e.getMessage());
            }
        }
    }

    /**
     * For a heartbeat: evaluates every Job of every watched cluster whose Job and pod informers are watching and
     * synced (each state not yet reported is reported now, through the same sink), and returns those clusters' GKE
     * resource names. A cluster whose informers are not watching (its API unreachable, a watch being re-established)
     * is left out: what happened there may not have been seen.
     *
     * @param reportAgain forget what was reported first (a send failed for good), so everything is reported again,
     *     the Jobs deleted lately included ({@link JobReports#goneAgain})
     */
    public List<io.falcon.events.executor.ExecutorEvent.ClusterObserved> observeAll(
            boolean reportAgain, java.time.Instant through) {
        java.time.Instant now = clock.instant();
        if (reportAgain) {
            reports.forgetAll();
            // the Jobs deleted lately cannot be read again: what was reported of them is sent again as it was
            reports.goneAgain(now).forEach(sink::emit);
        }
        List<io.falcon.events.executor.ExecutorEvent.ClusterObserved> observed = new java.util.ArrayList<>();
        for (Watched w : watched.values()) {
            String resource = w.cluster.resourceName();
            if (!w.jobs.isWatching() || !w.jobs.hasSynced() || !w.pods.isWatching() || !w.pods.hasSynced()) {
                observingSince.remove(resource); // a gap: what happens now may be seen only by the state it leaves
                continue;
            }
            java.time.Instant since = observingSince.computeIfAbsent(resource, r -> now);
            for (Job job : w.jobs.getStore().list()) {
                evaluateSafely(w, job.getMetadata().getName());
            }
            observed.add(new io.falcon.events.executor.ExecutorEvent.ClusterObserved(resource, through, since));
        }
        return observed;
    }

    /** The job a pod belongs to: our own label, else the job controller's labels. */
    static String jobNameOf(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        if (labels != null) {
            for (String key : List.of(FalconLabels.K8S_JOB, "batch.kubernetes.io/job-name", "job-name")) {
                if (labels.containsKey(key)) {
                    return labels.get(key);
                }
            }
        }
        if (pod.getMetadata().getOwnerReferences() != null) {
            for (OwnerReference ref : pod.getMetadata().getOwnerReferences()) {
                if ("Job".equals(ref.getKind())) {
                    return ref.getName();
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        recheck.cancel(false);
        inventory.cancel(false);
        for (Watched w : watched.values()) {
            stop(w);
        }
        watched.clear();
    }
}
