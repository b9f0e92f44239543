package io.falcon.fleetsim.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.UncountedTerminatedPods;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.falcon.fleetsim.FleetMilestones;
import io.falcon.fleetsim.gke.PendingPods;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in for the Kubernetes Job controller, scheduler and kubelets of one edge cluster: watches batch/v1 Jobs
 * in the cluster's mock API server, creates their pods, binds them to nodes of the requested node pool, runs them
 * for the time the Job's env asks, and keeps pod and Job status consistent the way the real controllers do.
 *
 * <p>All simulation state is owned by one thread; informer callbacks only enqueue work onto it.
 */
public final class JobLifecycleSimulator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobLifecycleSimulator.class);
    /** The annotation in which Falcon names its job. */
    private static final String JOB_ID_ANNOTATION = "falcon.io/job-id";
    /** ErrImagePull turns into ImagePullBackOff after this long. */
    private static final Duration IMAGE_PULL_BACKOFF_AFTER = Duration.ofMillis(500);

    private static final AtomicInteger POD_IPS = new AtomicInteger();

    private final String cluster;
    private final KubernetesClient client;
    private final Clock clock;
    private final Duration tick;
    private final ScheduledExecutorService loop;
    private final FleetMilestones milestones;
    private final PendingPods pending;
    /** How often the simulator compares what it tracks with what the API server holds ({@link #resync}). */
    static final Duration RESYNC_EVERY = Duration.ofSeconds(1);

    private final Map<String, SimulatedJob> jobs = new LinkedHashMap<>();
    /** Pods of deleted Jobs that are terminating (namespace/name -> node): they hold their node's chips until gone. */
    private final Map<String, String> terminating = new LinkedHashMap<>();

    private java.util.function.Supplier<Duration> podExitTime = () -> Duration.ZERO;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<Job> jobInformer;

    public JobLifecycleSimulator(String cluster, KubernetesClient client, Clock clock, Duration tick) {
        this(cluster, client, clock, tick, new FleetMilestones());
    }

    public JobLifecycleSimulator(
            String cluster, KubernetesClient client, Clock clock, Duration tick, FleetMilestones milestones) {
        this(cluster, client, clock, tick, milestones, PendingPods.NONE);
    }

    /** As above, reporting the pods it cannot place after each tick to {@code pending} (the cluster autoscaler). */
    /** The cluster's API knobs that reach the controller (a status write that fails). */
    private volatile ApiKnobs knobs = new ApiKnobs();

    void knobs(ApiKnobs knobs) {
        this.knobs = knobs;
    }

    public JobLifecycleSimulator(
            String cluster,
            KubernetesClient client,
            Clock clock,
            Duration tick,
            FleetMilestones milestones,
            PendingPods pending) {
        this.pending = pending;
        this.milestones = milestones;
        this.cluster = cluster;
        this.client = client;
        this.clock = clock;
        this.tick = tick;
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleet-sim-jobs-" + cluster);
            t.setDaemon(true);
            return t;
        });
    }

    /** How long a running pod's workload takes to exit after SIGTERM ({@link ApiKnobs#podExitTime}). */
    public void podExitTime(java.util.function.Supplier<Duration> time) {
        this.podExitTime = time;
    }

    public void start() {
        nodes = client.nodes().inform();
        jobInformer = client.batch().v1().jobs().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Job job) {
                loop.execute(() -> guarded("add", job, () -> track(job)));
            }

            @Override
            public void onUpdate(Job oldJob, Job newJob) {
                loop.execute(() -> guarded("update", newJob, () -> refresh(newJob)));
            }

            @Override
            public void onDelete(Job job, boolean finalStateUnknown) {
                loop.execute(() -> guarded("delete", job, () -> forget(job)));
            }
        });
        loop.scheduleWithFixedDelay(this::tick, tick.toNanos(), tick.toNanos(), TimeUnit.NANOSECONDS);
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        resync();
                    } catch (RuntimeException e) {
                        log.warn("job resync failed cluster={}: {}", cluster, e.toString());
                    }
                },
                RESYNC_EVERY.toNanos(),
                RESYNC_EVERY.toNanos(),
                TimeUnit.NANOSECONDS);
        log.info("job simulator started cluster={} tick={}", cluster, tick);
    }

    // --- informer events ---------------------------------------------------------------------------------------

    private void track(Job job) {
        if (job.getMetadata() == null || job.getSpec() == null || job.getSpec().getTemplate() == null) {
            log.warn("ignoring malformed job cluster={} job={}", cluster, job.getMetadata());
            return;
        }
        String key = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        SimulatedJob existing = jobs.get(key);
        if (existing != null && Objects.equals(existing.uid, job.getMetadata().getUid())) {
            existing.job = job;
            return;
        }
        if (isFinished(job)) {
            return; // finished before we saw it (e.g. the simulator restarted)
        }
        SimulatedJob simulated = new SimulatedJob(job);
        jobs.put(key, simulated);
        log.info(
                "job tracked cluster={} job={} completions={} indexed={} knobs={}",
                cluster,
                key,
                simulated.completions,
                simulated.indexed,
                simulated.knobs);
    }

    private void refresh(Job job) {
        String key = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        SimulatedJob simulated = jobs.get(key);
        if (simulated == null
                || !Objects.equals(simulated.uid, job.getMetadata().getUid())) {
            track(job);
        } else {
            simulated.job = job;
        }
    }

    private void forget(Job job) {
        String key = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        SimulatedJob simulated = jobs.get(key);
        if (simulated != null && Objects.equals(simulated.uid, job.getMetadata().getUid())) {
            jobs.remove(key);
        }
        // The mock API server does not garbage-collect dependents, so the simulator deletes the Job's pods: gracefully,
        // as the garbage collector's delete and the kubelet do. A pod that runs gets SIGTERM and stays, terminating
        // (deletionTimestamp set, its node's chips held), until its workload exits or its grace period is over.
        String uid = job.getMetadata().getUid();
        List<Pod> pods = client.pods()
                .inNamespace(job.getMetadata().getNamespace())
                .withLabel(PodFactory.CONTROLLER_UID_LABEL, uid)
                .list()
                .getItems();
        Duration exit = podExitTime.get();
        for (Pod pod : pods) {
            terminate(pod, exit);
        }
        log.info("job deleted cluster={} job={} podsDeleted={}", cluster, key, pods.size());
    }

    /**
     * Deletes the pod gracefully: at once if it is not on a node or has finished; else after the time its workload
     * takes to exit, at most its terminationGracePeriodSeconds (30 s by default), with its deletionTimestamp set
     * meanwhile.
     */
    private void terminate(Pod pod, Duration exit) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        boolean onNode = pod.getSpec() != null && pod.getSpec().getNodeName() != null;
        if (exit.isZero() || !onNode || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            deletePodQuietly(namespace, name);
            return;
        }
        long graceSeconds = pod.getSpec().getTerminationGracePeriodSeconds() == null
                ? 30
                : pod.getSpec().getTerminationGracePeriodSeconds();
        Duration grace = Duration.ofSeconds(graceSeconds);
        Duration until = exit.compareTo(grace) < 0 ? exit : grace;
        terminating.put(namespace + "/" + name, pod.getSpec().getNodeName());
        try {
            // The mock API server removes an object once it has a deletionTimestamp and no finalizers; the kubelet's
            // part (the pod stays until its containers are dead) is played by a finalizer of the sim's own, which
            // the graceful delete below leaves in place and which is removed when the workload has exited.
            var pods = client.pods().inNamespace(namespace).withName(name);
            pods.edit(p -> {
                p.getMetadata().setFinalizers(List.of(KUBELET_FINALIZER));
                p.getMetadata().setDeletionGracePeriodSeconds(graceSeconds);
                return p;
            });
            pods.withGracePeriod(graceSeconds).delete();
        } catch (KubernetesClientException e) {
            log.debug("terminating pod {}/{} failed code={}", namespace, name, e.getCode());
        }
        log.info("pod terminating cluster={} pod={}/{} for={}", cluster, namespace, name, until);
        loop.schedule(
                () -> {
                    terminating.remove(namespace + "/" + name);
                    try {
                        client.pods().inNamespace(namespace).withName(name).edit(p -> {
                            p.getMetadata().setFinalizers(List.of());
                            return p;
                        });
                    } catch (KubernetesClientException e) {
                        log.debug("pod {}/{} already gone code={}", namespace, name, e.getCode());
                    }
                    deletePodQuietly(namespace, name);
                    log.info("pod gone cluster={} pod={}/{}", cluster, namespace, name);
                },
                until.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Holds a terminating pod in the mock API server until the simulated kubelet lets it go. */
    static final String KUBELET_FINALIZER = "fleet-sim.falcon.io/kubelet";

    /**
     * Level-based, as Kubernetes' Job controller and garbage collector are: what the API server holds decides, not
     * the watch events that reached the informer. The mock API server can lose a watch event under load (a Job's
     * DELETED was seen missing in chaos runs): without this its pods stayed for good, holding their node, and a Job
     * handed that pool never got its pod scheduled. Runs on the simulator's thread, so no pod of its own is created
     * between the two listings: a pod whose controller's uid is not among the Jobs listed first has lost its Job.
     */
    private void resync() {
        List<Job> existing = client.batch().v1().jobs().inAnyNamespace().list().getItems();
        Set<String> uids = new HashSet<>();
        for (Job job : existing) {
            uids.add(job.getMetadata().getUid());
            String key =
                    job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
            SimulatedJob known = jobs.get(key);
            if (known == null || !Objects.equals(known.uid, job.getMetadata().getUid())) {
                track(job); // its ADDED never arrived
            }
        }
        for (SimulatedJob known : new ArrayList<>(jobs.values())) {
            if (!uids.contains(known.uid)) {
                jobs.remove(known.key(), known); // its DELETED never arrived; its pods go below
                log.info("job deleted cluster={} job={} (found gone on resync)", cluster, known.key());
            }
        }
        for (Pod pod : client.pods()
                .inAnyNamespace()
                .withLabel(PodFactory.CONTROLLER_UID_LABEL)
                .list()
                .getItems()) {
            String owner = pod.getMetadata().getLabels().get(PodFactory.CONTROLLER_UID_LABEL);
            boolean alreadyTerminating = pod.getMetadata().getDeletionTimestamp() != null
                    || terminating.containsKey(pod.getMetadata().getNamespace() + "/"
                            + pod.getMetadata().getName());
            if (!uids.contains(owner) && !alreadyTerminating) {
                // gracefully, as the garbage collector's delete and the kubelet do (see forget)
                terminate(pod, podExitTime.get());
                log.info(
                        "pod garbage-collected cluster={} pod={} (its Job uid={} is gone)",
                        cluster,
                        pod.getMetadata().getName(),
                        owner);
            }
        }
    }

    // --- reconciliation ----------------------------------------------------------------------------------------

    private void tick() {
        for (SimulatedJob job : new ArrayList<>(jobs.values())) {
            try {
                reconcile(job);
            } catch (KubernetesClientException e) {
                log.warn(
                        "job reconcile failed cluster={} job={} code={} message={}",
                        cluster,
                        job.key(),
                        e.getCode(),
                        e.getMessage());
            } catch (RuntimeException e) {
                log.error("job reconcile failed cluster={} job={}", cluster, job.key(), e);
            }
        }
        reportUnschedulable();
    }

    /**
     * Tells the cluster autoscaler which pods found no node this tick (those still Pending/Unschedulable), so that it
     * can scale a pool up for them, also when there are none (a scale-up's pods are then placed); and which nodes
     * hold a pod that has not finished, so that it can scale unneeded pools down.
     */
    private void reportUnschedulable() {
        List<PendingPods.PendingPod> waiting = new ArrayList<>();
        java.util.Set<String> occupied = new java.util.HashSet<>(terminating.values());
        for (SimulatedJob job : jobs.values()) {
            if (job.finished() || job.suspended()) {
                continue;
            }
            Map<String, String> selector =
                    job.job.getSpec().getTemplate().getSpec().getNodeSelector();
            for (SimulatedPod pod : job.pods) {
                if (!pod.terminal() && pod.nodeName != null) {
                    occupied.add(pod.nodeName);
                }
                if (pod.phase == SimulatedPod.Phase.UNSCHEDULABLE) {
                    waiting.add(new PendingPods.PendingPod(
                            job.namespace + "/" + pod.name, selector == null ? Map.of() : selector, pod.needsTpu));
                }
            }
        }
        try {
            pending.unschedulable(waiting);
            pending.occupied(occupied);
        } catch (RuntimeException e) {
            log.error("reporting to the cluster autoscaler failed cluster={} pods={}", cluster, waiting.size(), e);
        }
    }

    private void reconcile(SimulatedJob job) {
        if (job.finished()) {
            // A final status whose write failed is written again, as the controller retries at its next reconcile
            // (it was left active for good: chaos run seed 20261205 had a Job whose pod succeeded stay active).
            writeJobStatus(job);
            announce(job, FleetMilestones.Type.K8S_JOB_FINISHED);
            return;
        }
        if (job.suspended()) {
            return;
        }
        Instant now = clock.instant();
        if (job.startTime == null) {
            job.startTime = now;
        }
        if (job.activeDeadlineSeconds != null && !now.isBefore(job.startTime.plusSeconds(job.activeDeadlineSeconds))) {
            fail(job, "DeadlineExceeded", "Job was active longer than specified deadline", now);
            writeJobStatus(job);
            return;
        }
        if (job.failedPods <= job.backoffLimit) {
            for (int index = 0; index < job.completions; index++) {
                if (!job.slotCovered(index)) {
                    createPod(job, index, now);
                }
            }
        }
        for (SimulatedPod pod : job.livePods()) {
            advance(job, pod, now);
        }
        if (job.succeededPods() >= job.completions) {
            complete(job, now);
        } else if (job.failedByPolicy != null) {
            fail(job, "PodFailurePolicy", job.failedByPolicy, now);
        } else if (job.failedPods > job.backoffLimit) {
            fail(job, "BackoffLimitExceeded", "Job has reached the specified backoff limit", now);
        }
        writeJobStatus(job);
        if (job.finished()) {
            announce(job, FleetMilestones.Type.K8S_JOB_FINISHED);
        }
    }

    /** Once per Job and type, after the state it names was written to the API server. */
    private void announce(SimulatedJob job, FleetMilestones.Type type) {
        if (!milestones.observed() || !job.announced.add(type)) {
            return;
        }
        var annotations = job.job.getMetadata().getAnnotations();
        var selector = job.job.getSpec().getTemplate().getSpec().getNodeSelector();
        milestones.announce(new FleetMilestones.Milestone(
                clock.instant(),
                type,
                cluster,
                job.name,
                Optional.ofNullable(annotations == null ? null : annotations.get(JOB_ID_ANNOTATION)),
                Optional.ofNullable(selector == null ? null : selector.get(SimulatedNodes.NODE_POOL_LABEL))));
    }

    private void createPod(SimulatedJob job, int index, Instant now) {
        SimulatedPod pod = new SimulatedPod(
                PodFactory.podName(job, index),
                index,
                PodFactory.requestsTpu(job.job.getSpec().getTemplate()));
        try {
            client.pods()
                    .inNamespace(job.namespace)
                    .resource(PodFactory.newPod(job, pod, now))
                    .create();
            job.pods.add(pod);
            log.info("pod created cluster={} job={} pod={} index={}", cluster, job.key(), pod.name, index);
        } catch (KubernetesClientException e) {
            // 409: name clash with a random suffix; the next tick retries with a new one.
            log.warn("pod create failed cluster={} job={} pod={} code={}", cluster, job.key(), pod.name, e.getCode());
        }
    }

    private void advance(SimulatedJob job, SimulatedPod pod, Instant now) {
        switch (pod.phase) {
            case UNSCHEDULABLE -> {
                Node node = pickNode(job, pod);
                if (node == null) {
                    return;
                }
                bind(job, pod, node, now);
            }
            case IMAGE_PULL_FAILING -> {
                if (lostNode(job, pod)) {
                    return;
                }
                if (pod.pulledAt != null && !now.isBefore(pod.pulledAt)) {
                    // the kubelet's retry got the image
                    if (cannotConfigure(job, pod)) {
                        writePod(job, pod);
                        return;
                    }
                    pod.phase = SimulatedPod.Phase.RUNNING;
                    pod.backingOff = false;
                    pod.startedAt = now;
                    pod.finishAt = now.plus(job.knobs.runFor());
                    log.info("pod pulled its image cluster={} job={} pod={}", cluster, job.key(), pod.name);
                    writePod(job, pod);
                    if (job.pods.stream()
                                    .filter(p -> p.phase == SimulatedPod.Phase.RUNNING)
                                    .count()
                            >= job.completions) {
                        announce(job, FleetMilestones.Type.PODS_RUNNING);
                    }
                    return;
                }
                if (!pod.backingOff && !now.isBefore(pod.scheduledAt.plus(IMAGE_PULL_BACKOFF_AFTER))) {
                    pod.backingOff = true;
                    writePod(job, pod);
                }
            }
            case CONFIG_FAILING -> {
                if (lostNode(job, pod)) {
                    return;
                }
                String before = pod.configError;
                if (cannotConfigure(job, pod)) {
                    if (!pod.configError.equals(before)) {
                        writePod(job, pod);
                    }
                    return;
                }
                // the kubelet's retry found the Secret
                pod.phase = SimulatedPod.Phase.RUNNING;
                pod.configError = null;
                pod.startedAt = now;
                pod.finishAt = now.plus(job.knobs.runFor());
                log.info("pod configured its container cluster={} job={} pod={}", cluster, job.key(), pod.name);
                writePod(job, pod);
                if (job.pods.stream()
                                .filter(p -> p.phase == SimulatedPod.Phase.RUNNING)
                                .count()
                        >= job.completions) {
                    announce(job, FleetMilestones.Type.PODS_RUNNING);
                }
            }
            case RUNNING -> {
                if (lostNode(job, pod)) {
                    return;
                }
                if (!now.isBefore(pod.finishAt)) {
                    pod.finishedAt = now;
                    pod.phase = job.knobs.effectiveExitCode() == 0
                            ? SimulatedPod.Phase.SUCCEEDED
                            : SimulatedPod.Phase.FAILED;
                    if (pod.phase == SimulatedPod.Phase.FAILED) {
                        job.failedPods++;
                    }
                    log.info(
                            "pod finished cluster={} job={} pod={} phase={} exitCode={} reason={}",
                            cluster,
                            job.key(),
                            pod.name,
                            pod.phase,
                            job.knobs.effectiveExitCode(),
                            job.knobs.terminationReason());
                    writePod(job, pod);
                }
            }
            default -> {}
        }
    }

    private void bind(SimulatedJob job, SimulatedPod pod, Node node, Instant now) {
        pod.nodeName = node.getMetadata().getName();
        pod.hostIp = internalIp(node);
        int ip = POD_IPS.incrementAndGet();
        pod.podIp = "10.8." + (ip / 250) + "." + (ip % 250 + 2);
        pod.scheduledAt = now;
        if (job.knobs.imageMissing()) {
            pod.phase = SimulatedPod.Phase.IMAGE_PULL_FAILING;
        } else if (!job.knobs.pullFailsFor().isZero()
                && !job.knobs.pullFailsFor().isNegative()) {
            pod.phase = SimulatedPod.Phase.IMAGE_PULL_FAILING;
            pod.pulledAt = now.plus(job.knobs.pullFailsFor());
        } else if (!cannotConfigure(job, pod)) {
            pod.phase = SimulatedPod.Phase.RUNNING;
            pod.startedAt = now;
            pod.finishAt = now.plus(job.knobs.runFor());
        }
        log.info(
                "pod scheduled cluster={} job={} pod={} node={} phase={}",
                cluster,
                job.key(),
                pod.name,
                pod.nodeName,
                pod.phase);
        writePod(job, pod);
        long running = job.pods.stream()
                .filter(p -> p.phase == SimulatedPod.Phase.RUNNING)
                .count();
        if (running >= job.completions) {
            announce(job, FleetMilestones.Type.PODS_RUNNING);
        }
    }

    /**
     * Whether the kubelet cannot make the pod's container because an environment variable's Secret, or its key, is
     * missing (a reference marked optional excepted): the pod then waits in CONFIG_FAILING with the kubelet's message
     * (CreateContainerConfigError), and is looked at again every tick, as the kubelet retries.
     */
    private boolean cannotConfigure(SimulatedJob job, SimulatedPod pod) {
        for (var container : job.job.getSpec().getTemplate().getSpec().getContainers()) {
            for (var variable : container.getEnv() == null
                    ? List.<io.fabric8.kubernetes.api.model.EnvVar>of()
                    : container.getEnv()) {
                var reference = variable.getValueFrom() == null
                        ? null
                        : variable.getValueFrom().getSecretKeyRef();
                if (reference == null || Boolean.TRUE.equals(reference.getOptional())) {
                    continue;
                }
                io.fabric8.kubernetes.api.model.Secret secret = client.secrets()
                        .inNamespace(job.namespace)
                        .withName(reference.getName())
                        .get();
                String problem = null;
                if (secret == null) {
                    problem = "secret \"" + reference.getName() + "\" not found";
                } else if ((secret.getData() == null || !secret.getData().containsKey(reference.getKey()))
                        && (secret.getStringData() == null
                                || !secret.getStringData().containsKey(reference.getKey()))) {
                    problem = "couldn't find key " + reference.getKey() + " in Secret " + job.namespace + "/"
                            + reference.getName();
                }
                if (problem != null) {
                    pod.phase = SimulatedPod.Phase.CONFIG_FAILING;
                    pod.configError = problem;
                    return true;
                }
            }
        }
        return false;
    }

    /** A pod whose node went away (its pool was deleted) is gone, and counts as a failure, as with PodGC. */
    private boolean lostNode(SimulatedJob job, SimulatedPod pod) {
        if (nodes.getStore().getByKey(pod.nodeName) != null) {
            return false;
        }
        log.info("pod lost its node cluster={} job={} pod={} node={}", cluster, job.key(), pod.name, pod.nodeName);
        // as the pod GC does (PodDisruptionConditions, GA in Kubernetes 1.31): Failed with DisruptionTarget
        // DeletionByPodGC first, then deleted, so that a watcher can tell the fleet's doing from the program's
        pod.phase = SimulatedPod.Phase.FAILED;
        pod.disruption = "DeletionByPodGC";
        pod.finishedAt = clock.instant();
        try {
            writePod(job, pod);
        } catch (KubernetesClientException e) {
            log.info(
                    "pod status before its deletion not written cluster={} pod={}: {}",
                    cluster,
                    pod.name,
                    e.getMessage());
        }
        deletePodQuietly(job.namespace, pod.name);
        job.pods.remove(pod);
        job.failedPods++;
        job.failJobRuleOnCondition("DisruptionTarget")
                .ifPresent(rule -> job.failedByPolicy = "Pod " + job.namespace + "/" + pod.name
                        + " has condition DisruptionTarget matching FailJob rule at index " + rule);
        return true;
    }

    /** A Ready node matching the pod's nodeSelector; TPU pods get a node of their own. */
    private Node pickNode(SimulatedJob job, SimulatedPod pod) {
        PodSpec spec = job.job.getSpec().getTemplate().getSpec();
        Map<String, String> selector = spec.getNodeSelector() == null ? Map.of() : spec.getNodeSelector();
        List<Node> candidates = nodes.getStore().list().stream()
                .filter(JobLifecycleSimulator::ready)
                .filter(n -> matches(n, selector))
                .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
                .toList();
        if (candidates.isEmpty()) {
            return null;
        }
        if (pod.needsTpu) {
            Set<String> busy = tpuBusyNodes();
            return candidates.stream()
                    .filter(n -> !busy.contains(n.getMetadata().getName()))
                    .findFirst()
                    .orElse(null);
        }
        return candidates.get(pod.index % candidates.size());
    }

    private Set<String> tpuBusyNodes() {
        // a terminating pod's chips are not free until it is gone
        Set<String> busy = new HashSet<>(terminating.values());
        for (SimulatedJob j : jobs.values()) {
            for (SimulatedPod p : j.pods) {
                if (p.needsTpu && !p.terminal() && p.nodeName != null) {
                    busy.add(p.nodeName);
                }
            }
        }
        return busy;
    }

    private void complete(SimulatedJob job, Instant now) {
        job.outcome = SimulatedJob.Outcome.COMPLETE;
        job.finishedAt = now;
        job.completionTime = now;
        log.info("job complete cluster={} job={} succeeded={}", cluster, job.key(), job.succeededPods());
    }

    private void fail(SimulatedJob job, String reason, String message, Instant now) {
        job.outcome = SimulatedJob.Outcome.FAILED;
        job.failureReason = reason;
        job.failureMessage = message;
        job.finishedAt = now;
        // Like the real controller, a failed Job's remaining pods are terminated.
        for (SimulatedPod pod : job.livePods()) {
            deletePodQuietly(job.namespace, pod.name);
            job.pods.remove(pod);
        }
        log.info("job failed cluster={} job={} reason={} failedPods={}", cluster, job.key(), reason, job.failedPods);
    }

    // --- writes ------------------------------------------------------------------------------------------------

    private void writePod(SimulatedJob job, SimulatedPod pod) {
        try {
            client.pods().inNamespace(job.namespace).withName(pod.name).edit(p -> {
                if (pod.nodeName != null) {
                    p.getSpec().setNodeName(pod.nodeName);
                }
                p.setStatus(PodFactory.status(
                        job,
                        pod,
                        p.getSpec(),
                        clock.instant(),
                        nodes.getStore().list().size()));
                return p;
            });
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            // Deleted behind our back: the controller counts an unfinished pod as failed and replaces it.
            log.info("pod vanished cluster={} job={} pod={}", cluster, job.key(), pod.name);
            job.pods.remove(pod);
            if (!pod.terminal()) {
                job.failedPods++;
            }
        }
    }

    private void writeJobStatus(SimulatedJob job) {
        JobStatus status = jobStatus(job);
        if (status.equals(job.lastWritten)) {
            return;
        }
        if (knobs.takeJobStatusWriteFailure()) {
            throw new KubernetesClientException(
                    "the server was unable to return a response in the time allotted", 504, null);
        }
        try {
            client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(job.namespace)
                    .withName(job.name)
                    .edit(j -> {
                        j.setStatus(status);
                        return j;
                    });
            job.lastWritten = status;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            log.info("job vanished cluster={} job={}", cluster, job.key());
        }
    }

    private JobStatus jobStatus(SimulatedJob job) {
        JobStatus status = new JobStatus();
        status.setStartTime(PodFactory.time(job.startTime));
        // Like the API server, zero counters are omitted (null) except ready and terminating.
        int active = job.livePods().size();
        status.setActive(active > 0 ? active : null);
        status.setReady((int) job.pods.stream()
                .filter(p -> p.phase == SimulatedPod.Phase.RUNNING)
                .count());
        status.setTerminating(0);
        long succeeded = job.succeededPods();
        status.setSucceeded(succeeded > 0 ? (int) succeeded : null);
        status.setFailed(job.failedPods > 0 ? job.failedPods : null);
        status.setUncountedTerminatedPods(new UncountedTerminatedPods());
        if (job.indexed && succeeded > 0) {
            status.setCompletedIndexes(indexRanges(job));
        }
        String at = PodFactory.time(job.finishedAt);
        if (job.outcome == SimulatedJob.Outcome.COMPLETE) {
            status.setConditions(List.of(
                    condition(
                            "SuccessCriteriaMet",
                            "CompletionsReached",
                            "Reached expected number of succeeded pods",
                            at),
                    condition("Complete", "CompletionsReached", "Reached expected number of succeeded pods", at)));
            status.setCompletionTime(PodFactory.time(job.completionTime));
        } else if (job.outcome == SimulatedJob.Outcome.FAILED) {
            status.setConditions(List.of(
                    condition("FailureTarget", job.failureReason, job.failureMessage, at),
                    condition("Failed", job.failureReason, job.failureMessage, at)));
        }
        return status;
    }

    private static JobCondition condition(String type, String reason, String message, String at) {
        return new JobConditionBuilder()
                .withType(type)
                .withStatus("True")
                .withReason(reason)
                .withMessage(message)
                .withLastProbeTime(at)
                .withLastTransitionTime(at)
                .build();
    }

    /** "0-2,4" style, as in status.completedIndexes. */
    private static String indexRanges(SimulatedJob job) {
        int[] done = job.pods.stream()
                .filter(p -> p.phase == SimulatedPod.Phase.SUCCEEDED)
                .mapToInt(p -> p.index)
                .distinct()
                .sorted()
                .toArray();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < done.length; i++) {
            int start = done[i];
            while (i + 1 < done.length && done[i + 1] == done[i] + 1) {
                i++;
            }
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(start == done[i] ? Integer.toString(start) : start + "-" + done[i]);
        }
        return out.toString();
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    private void deletePodQuietly(String namespace, String name) {
        try {
            client.pods().inNamespace(namespace).withName(name).delete();
        } catch (KubernetesClientException e) {
            log.debug("pod delete failed cluster={} pod={}/{} code={}", cluster, namespace, name, e.getCode());
        }
    }

    private static boolean isFinished(Job job) {
        return job.getStatus() != null
                && job.getStatus().getConditions() != null
                && job.getStatus().getConditions().stream()
                        .anyMatch(c -> "True".equals(c.getStatus())
                                && ("Complete".equals(c.getType()) || "Failed".equals(c.getType())));
    }

    private static boolean ready(Node node) {
        return node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean matches(Node node, Map<String, String> selector) {
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        return selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }

    private static String internalIp(Node node) {
        if (node.getStatus() == null || node.getStatus().getAddresses() == null) {
            return null;
        }
        return node.getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType()))
                .map(NodeAddress::getAddress)
                .findFirst()
                .orElse(null);
    }

    private void guarded(String event, Job job, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.error(
                    "job {} handling failed cluster={} job={}",
                    event,
                    cluster,
                    job.getMetadata() == null ? "?" : job.getMetadata().getName(),
                    e);
        }
    }

    @Override
    public void close() {
        if (jobInformer != null) {
            jobInformer.close();
        }
        if (nodes != null) {
            nodes.close();
        }
        loop.shutdownNow();
    }
}
