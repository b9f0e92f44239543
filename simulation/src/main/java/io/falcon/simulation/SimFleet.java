package io.falcon.simulation;

import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.executor.FalconLabels;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.GkeApi;
import io.falcon.executor.core.JobReports;
import io.falcon.executor.core.JobView;
import io.falcon.executor.core.PodView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * GKE and the edge clusters' Kubernetes APIs in memory, as strict as the real ones where Falcon depends on it: a
 * pool is PROVISIONING for minutes, may be invisible right after a flex-start create, may fail for quota or end in
 * ERROR; a delete while the create operation runs is refused; nodes register one by one, sometimes late; a Job's
 * pods run only on the Ready nodes of the pool its nodeSelector names, and die when that pool is deleted; names are
 * unique (409) and deletes of what is gone answer 404. A flex-start pool is RUNNING without nodes and gets its VMs
 * only for pending pods that select it, after a wait for capacity (GKE's flex-start, docs/gke.md), and loses them
 * again when it has been idle for a while (the autoscaler's scale-down). Every call may fail with a transient error,
 * before or after it took effect. It also keeps, from the outside, the record the checks need: every Job created per task, and
 * every pool deleted under a Job.
 */
final class SimFleet implements GkeApi, EdgeApi {
    private final Loop loop;
    private final Random rnd;
    private Faults faults;
    private final Map<String, Scenario.JobPlan> plans;
    private final Map<String, Integer> reservationHosts;
    private final Map<String, Pool> pools = new LinkedHashMap<>();
    private final Map<String, Op> operations = new HashMap<>();
    private final Map<String, KJob> jobs = new LinkedHashMap<>();
    private final Map<String, Integer> jobCreates = new HashMap<>();
    /** What the fleet did to each Falcon job that can end it Failed (for the checks: the Reason must match one). */
    private final Map<String, java.util.EnumSet<Cause>> causes = new HashMap<>();
    /** The same, per node pool name (a pool may be handed to another job than the one it was created for). */
    private final Map<String, java.util.EnumSet<Cause>> poolCauses = new HashMap<>();

    /** When each Falcon job's Kubernetes Job succeeded (its pods completed), for the checks. */
    private final Map<String, Instant> succeeded = new HashMap<>();

    private final Map<String, Instant> deletedJobs = new HashMap<>();
    /**
     * The draws of the faults added after the seeds' scenarios were fixed (Jobs deleted by hand), on a stream of their
     * own, so that every other draw of a seed stays as it was.
     */
    private final Random handRnd;
    /** When a Falcon job's Kubernetes Job was deleted by someone other than Falcon before it finished, for the checks. */
    private final Map<String, Instant> handDeleted = new HashMap<>();
    /** The uid of the unfinished Job deleted by hand, per job (the first, as {@link #handDeleted}). */
    private final Map<String, String> handDeletedUid = new HashMap<>();
    /** Finished Kubernetes Jobs deleted by someone other than Falcon, by Falcon job id, and when. */
    private final Map<String, Instant> endedThenDeleted = new HashMap<>();
    /**
     * Pods of deleted Jobs that were running: they terminate for a while (the workload's answer to SIGTERM, at most the
     * pod's terminationGracePeriodSeconds, 30 s by default) and hold their nodes' TPU chips until they are gone.
     */
    private final List<Terminating> terminating = new ArrayList<>();
    /** How long each deleted running pod takes to go, drawn on a stream of its own. */
    private final Random graceRnd;
    /** Scale-ups of pools the autoscaler scaled down after they came with their nodes, on a stream of their own. */
    private final Random scaleRnd;

    /** Image pulls (transient errors, the binding of pods that cannot pull), drawn on a stream of its own. */
    private final Random pullRnd;

    private final java.util.Set<String> pulledLate = new java.util.HashSet<>();

    /** Evictions and preemptions of running pods ({@link Faults#podEvicted}), drawn on a stream of its own. */
    private Random evictRnd = new Random(0);

    /** Nodes going away under running Jobs ({@link Faults#hostMaintenance}), drawn on a stream of its own. */
    private Random hostRnd = new Random(0);

    /** Devices of running Jobs isolated by fault-streams ({@link Faults#deviceIsolated}), on a stream of its own. */
    private Random deviceRnd = new Random(0);

    /** Told of each ISOLATED verdict fault-streams gives about a device of a running Job, when it gives it. */
    private Consumer<FaultVerdict> onDeviceIsolated = verdict -> {};

    /**
     * How long a pod stays visible at least after its last change before it is removed: a watch delivers every
     * change, and the simulated informers sample every 5 s, so a deleted pod is kept that long for them to see it.
     */
    private static final Duration SEEN_BEFORE_REMOVAL = Duration.ofSeconds(5);

    /** Scripted: every Job's pods fail to pull their image for this long once on their nodes (empty: drawn). */
    private Optional<Duration> pullFailsFor = Optional.empty();

    /** Scripted: the last node of a multi-host pool that becomes RUNNING from now on comes this late (empty: drawn). */
    private Optional<Duration> lastNodeDelay = Optional.empty();

    /** Scripted: how long every deleted running pod takes to go (empty: drawn). */
    private Optional<Duration> podExitTime = Optional.empty();

    private record Terminating(
            ClusterTarget cluster, String pool, String falconJobId, String name, String uid, int pods, Instant until) {}

    /** The Jobs deleted by someone other than Falcon (cluster resource / name). */
    private final java.util.Set<String> byHand = new java.util.HashSet<>();
    /** Falcon jobs whose Job was created again, after a deletion by hand, by a command that could not know of it. */
    private final java.util.Set<String> recreatedAfterHandDeletion = new java.util.HashSet<>();
    /** When the latest create and delete operations of each pool started (GKE lists operations for days). */
    private final Map<String, Instant> createStarted = new HashMap<>();

    private final Map<String, Instant> deleteStarted = new HashMap<>();
    private final List<String> violations;
    private Consumer<PoolLoss> onPoolLoss = loss -> {};
    private boolean healed;
    /** Scripted faults: calls that fail (transiently, before any effect) the next n times. */
    private final Map<String, Integer> failNext = new HashMap<>();
    /** Scripted: nodes of pools created from now on register only after this long (empty: at random). */
    private Optional<Duration> nodeDelay = Optional.empty();
    /** Scripted: no flex-start capacity (scale-ups wait) until cleared or the heal. */
    private boolean stockout;

    private boolean quotaExhausted;

    private boolean refuseJobCreates;

    private boolean refusePods;

    /** GKE clusters (resource names) that refuse every creation until the instant given (Scenario.ClusterRefuses). */
    private final Map<String, Instant> refusingUntil = new HashMap<>();

    /** Each creation a refusing cluster refused: the outage, the job, when. */
    private final List<Refused> refused = new ArrayList<>();

    /** An outage of one GKE cluster, from its start to its end. */
    record Outage(String cluster, Instant from, Instant until) {}

    /** A creation refused during an outage. */
    record Refused(Outage outage, String falconJobId, Instant at) {}

    private final Map<String, Outage> outages = new HashMap<>();
    /** The installation the simulated Falcon is (its labels on what it creates). */
    private final io.falcon.executor.core.Ownership ownership = io.falcon.executor.core.Ownership.DEFAULT;

    /** The production events of {@link Reality}, drawn on a stream of their own. */
    private Reality reality = Reality.NONE;

    private Random realityRnd = new Random(0);

    private long opSeq;
    private long uidSeq;

    /** How long things take when nothing goes wrong (the fault model's draws unless set). */
    private Timings timings = new Timings.Drawn();

    /** What the chips did, for {@link Goodput}. */
    private final Usage usage = new Usage();

    /** Something the fleet did to a job that may end it Failed; {@link Checks#checkCauses} matches Reasons to them. */
    enum Cause {
        /** GKE refused its pool (quota) or the pool failed (ERROR, a failed operation). */
        POOL_FAILED,
        /** Its pool took longer than the create timeout. */
        POOL_SLOW,
        /** A GKE or Kubernetes call made for it failed transiently. */
        API_ERROR,
        /** The nodes under its running pods went (its pool deleted by someone else). */
        NODES_LOST,
        /** Its Kubernetes Job's create was refused for good (RBAC, an admission webhook, a quota on Jobs). */
        SUBMIT_REFUSED,
        /** Its Job was created but its pods cannot be (a missing service account, a quota on pods). */
        PODS_REFUSED,
        /** Its Kubernetes Job was deleted by someone other than Falcon before it finished. */
        JOB_DELETED_BY_HAND,
        /** A node pool of another owner (another team, another Falcon) bore the name Falcon gives its pool. */
        FOREIGN_OBJECT,
        /** A pod of its running Job was evicted or preempted while its node stayed. */
        POD_EVICTED,
        /** A node under its running Job went away (host maintenance, its VM terminated). */
        HOST_LOST,
        /** fault-streams isolated a device of its running Job. */
        DEVICE_ISOLATED
    }

    /** A pool deletion that took nodes from a Job still defined in the cluster. */
    record PoolLoss(String pool, String falconJobId, Instant at) {}

    private static final class Pool {
        final ClusterTarget cluster;
        final String name;
        final int hosts;
        final Map<String, String> labels;
        final Optional<String> reservation;
        final Instant createdAt;
        /** The job id its node metadata names (falcon-job-id): the job that asked for it. */
        String creatorJobId = "";

        /** The TPU chips of its VMs. */
        int chips;

        Instant visibleAt;
        PoolStatus status = PoolStatus.PROVISIONING;
        String statusMessage = "";
        String createOp;
        /** The create operation's name, kept after it is done (createOp is cleared then). */
        String createOpName;
        /** Its VMs came up on the reservation: it counts against the reservation's capacity until deleted. */
        boolean consumesReservation;

        boolean stopping;
        int registered;
        int ready;
        boolean nodesNever;
        /** Flex-start: nodes only for pending pods that select the pool (scaled up from zero). */
        boolean fromZero;
        /** A scale-up is under way (waiting for capacity). */
        boolean scaling;
        /** No capacity for it until the heal (a flex-start stockout). */
        boolean stockedOut;
        /** How long it stays idle before the autoscaler takes its nodes away. */
        Duration scaleDownAfter = Duration.ofHours(6);
        /** Created as a flex-start pool (from zero); else it came with its nodes and may lose them to a scale-down. */
        boolean createdFlex;
        /** Counts the autoscaler's scale-downs: node registrations under way before one are void. */
        int nodeGen;
        /** Someone else's pool (no Falcon labels, no falcon-job-id): Falcon must never adopt or delete it. */
        boolean foreign;

        Pool(
                ClusterTarget cluster,
                String name,
                int hosts,
                Map<String, String> labels,
                Optional<String> reservation,
                Instant createdAt) {
            this.cluster = cluster;
            this.name = name;
            this.hosts = hosts;
            this.labels = labels;
            this.reservation = reservation;
            this.createdAt = createdAt;
        }
    }

    private record Op(Instant doneAt, Optional<String> error) {}

    /**
     * One pod of a running Job that the fleet disrupted (evicted, preempted, its node shut down or lost), and the
     * other pods of its slice, which the Job controller deletes once the Job failed (backoffLimit 0).
     */
    private static final class PodDisruption {
        final int pod;
        /** Its node went NotReady without notice: its kubelet cannot report the pod's end (the taint manager acts). */
        boolean nodeUnreachable;
        /** Its DisruptionTarget reason; empty until Kubernetes set it. */
        String reason = "";
        /** The pod's status reason and message (the kubelet's, on a graceful node shutdown). */
        String podReason = "";

        String podMessage = "";
        String phase = "Running";
        boolean deleting;
        Optional<PodView.Terminated> terminated = Optional.empty();
        /** Deleted and its deletion complete: the API no longer lists it. */
        boolean gone;

        String siblingsPhase = "Running";
        boolean siblingsDeleting;
        Optional<PodView.Terminated> siblingsTerminated = Optional.empty();
        boolean siblingsGone;

        PodDisruption(int pod) {
            this.pod = pod;
        }

        boolean visible() {
            return !reason.isEmpty();
        }
    }

    private static final class KJob {
        final ClusterTarget cluster;
        final String name;
        final String uid;
        final String falconJobId;
        final String pool;
        final int pods;
        final Instant createdAt;
        final Scenario.JobPlan plan;
        String podPhase = "Pending";
        Optional<PodView.Waiting> waiting = Optional.empty();
        Optional<PodView.Terminated> terminated = Optional.empty();
        /** The DisruptionTarget reason Kubernetes set on its pods when the fleet killed them (empty: none). */
        Optional<String> disruption = Optional.empty();

        List<JobView.Condition> conditions = List.of();
        boolean runScheduled;
        /** The Job controller cannot create its pods (a missing service account, a quota on pods). */
        boolean podsRefused;
        /** When its pods were bound to their nodes (PodScheduled True): only then can they pull their image. */
        Instant scheduledAt;
        /** One of its pods the fleet disrupted while it ran (empty: none). */
        Optional<PodDisruption> podDisruption = Optional.empty();

        KJob(
                ClusterTarget cluster,
                String name,
                String uid,
                String falconJobId,
                String pool,
                int pods,
                Instant createdAt,
                Scenario.JobPlan plan) {
            this.cluster = cluster;
            this.name = name;
            this.uid = uid;
            this.falconJobId = falconJobId;
            this.pool = pool;
            this.pods = pods;
            this.createdAt = createdAt;
            this.plan = plan;
        }

        boolean finished() {
            return conditions.stream().anyMatch(c -> c.isTrue("Complete") || c.isTrue("Failed"));
        }
    }

    SimFleet(
            Loop loop,
            Random rnd,
            Faults faults,
            Map<String, Scenario.JobPlan> plans,
            Map<String, Integer> reservationHosts,
            List<String> violations,
            Random handRnd,
            Random graceRnd,
            Random pullRnd,
            Random scaleRnd) {
        this.pullRnd = pullRnd;
        this.scaleRnd = scaleRnd;
        this.loop = loop;
        this.rnd = rnd;
        this.handRnd = handRnd;
        this.graceRnd = graceRnd;
        this.faults = faults;
        this.plans = plans;
        this.reservationHosts = reservationHosts;
        this.violations = violations;
    }

    /** How long things take; set before the run starts. */
    void timings(Timings timings) {
        this.timings = timings;
    }

    Usage usage() {
        return usage;
    }

    void onPoolLoss(Consumer<PoolLoss> listener) {
        this.onPoolLoss = listener;
    }

    /** The streams the disruptions of running pods are drawn from (each its own: the seeds' other draws stay). */
    void disruptions(Random evictions, Random hosts, Random devices) {
        this.evictRnd = evictions;
        this.hostRnd = hosts;
        this.deviceRnd = devices;
    }

    void onDeviceIsolated(Consumer<FaultVerdict> listener) {
        this.onDeviceIsolated = listener;
    }

    /** The ordinary production events to inject, and the stream they are drawn from. */
    void reality(Reality events, Random rnd) {
        this.reality = events;
        this.realityRnd = rnd;
    }

    /** From now on nothing fails by chance, and nodes that were not going to register do. */
    void heal() {
        healed = true;
        faults = Faults.NONE;
        reality = reality.healed();
        for (Pool pool : pools.values()) {
            if (pool.status == PoolStatus.RECONCILING) {
                pool.status = PoolStatus.RUNNING;
                pool.statusMessage = "";
            }
        }
        for (Pool pool : List.copyOf(pools.values())) {
            if (pool.nodesNever && pool.status == PoolStatus.RUNNING) {
                pool.nodesNever = false;
                registerNodes(pool, Duration.ofSeconds(30));
            }
            if (pool.stockedOut) {
                pool.stockedOut = false;
            }
            scaleUp(pool); // also a pool that was RECONCILING when its pods came
        }
    }

    /** The next n calls named so (e.g. "jobs.create") fail with a transient error before taking effect. */
    void failNext(String call, int n) {
        failNext.put(call, n);
    }

    /** The GKE cluster refuses every node-pool and Kubernetes Job creation from now until {@code until}. */
    /** Foreign pools (cluster resource / name) someone asked GKE to delete: only Falcon's executor does that here. */
    private final Set<String> foreignDeleted = new java.util.TreeSet<>();

    private final Set<String> foreignPools = new java.util.TreeSet<>();

    /**
     * Another owner (another team's tool, a second Falcon) creates a RUNNING node pool under the name Falcon will give
     * the job's pool, without Falcon's labels. Falcon must fail the job with a clear Message and leave the pool alone.
     */
    void foreignPool(ClusterTarget cluster, String name, String falconJobId) {
        String key = key(cluster, name);
        if (pools.containsKey(key)) {
            return;
        }
        Pool pool = new Pool(cluster, name, 1, Map.of("team", "other-tool"), Optional.empty(), loop.now());
        pool.visibleAt = loop.now();
        pool.status = PoolStatus.RUNNING;
        pool.registered = 1;
        pool.ready = 1;
        pool.foreign = true;
        pools.put(key, pool);
        foreignPools.add(key);
        cause(falconJobId, Cause.FOREIGN_OBJECT);
        poolCause(name, Cause.FOREIGN_OBJECT);
    }

    /** The foreign pools that were asked to be deleted (by Falcon: nothing else deletes pools here). */
    Set<String> foreignPoolsDeleted() {
        return foreignDeleted;
    }

    /** The foreign pools put in the fleet. */
    Set<String> foreignPools() {
        return foreignPools;
    }

    void refuseCreates(ClusterTarget cluster, Instant from, Instant until) {
        refusingUntil.merge(cluster.resourceName(), until, (a, b) -> a.isAfter(b) ? a : b);
        outages.put(
                cluster.resourceName(),
                new Outage(cluster.resourceName(), from, refusingUntil.get(cluster.resourceName())));
    }

    /** The creations refused during outages (for the check that cluster choice stops sending work there). */
    List<Refused> refusedDuringOutages() {
        return List.copyOf(refused);
    }

    /** Outages during which their cluster showed work going through (a pool asked for before came up, pods ran). */
    private final java.util.Set<Outage> withSuccesses = new java.util.HashSet<>();

    private void succeededDuringOutage(ClusterTarget cluster) {
        Instant until = refusingUntil.get(cluster.resourceName());
        if (until != null && loop.now().isBefore(until)) {
            withSuccesses.add(outages.get(cluster.resourceName()));
        }
    }

    /**
     * Whether work went through on the outage's cluster while it lasted: Falcon's cluster health rightly takes that
     * as the cluster working again, so the outage's bound on the jobs sent there does not apply.
     */
    boolean successDuring(Outage outage) {
        return withSuccesses.contains(outage);
    }

    /** If the cluster is in an outage now, records the refusal of the job's creation and says so. */
    private boolean refusing(ClusterTarget cluster, String falconJobId) {
        Instant until = refusingUntil.get(cluster.resourceName());
        if (healed || until == null || !loop.now().isBefore(until)) {
            return false;
        }
        refused.add(new Refused(outages.get(cluster.resourceName()), falconJobId, loop.now()));
        return true;
    }

    /** Scripted: every node-pool creation is refused for quota (permanent) until this is turned off. */
    void quotaExhausted(boolean on) {
        quotaExhausted = on;
    }

    /** A flex-start stockout: no pool gets nodes for its pending pods until it is cleared (or the heal). */
    void flexStockout(boolean on) {
        stockout = on;
        if (!on) {
            for (Pool pool : List.copyOf(pools.values())) {
                if (pool.stockedOut) {
                    pool.stockedOut = false;
                    scaleUp(pool);
                }
            }
        }
    }

    /**
     * Scripted: someone other than Falcon deletes the pool (an operator, or GKE deleting a failed pool) at once,
     * without the checks of Falcon's own deletions.
     */
    void deleteOutOfBand(String poolName) {
        scripted(
                        pools.values().stream()
                                .filter(pool -> pool.name.equals(poolName))
                                .toList(),
                        "node pool",
                        poolName)
                .forEach(this::vanish);
    }

    /** A scripted event names something that is there: a script that names nothing would test nothing. */
    private static <T> List<T> scripted(List<T> found, String what, String name) {
        if (found.isEmpty()) {
            throw new IllegalArgumentException("no " + what + " named " + name + " in the fleet");
        }
        return found;
    }

    /** The pool goes without Falcon asking: its nodes with it, so the pods running on them fail. */
    private void vanish(Pool pool) {
        failPodsOn(pool);
        terminating.removeIf(t -> t.cluster.equals(pool.cluster) && t.pool.equals(pool.name));
        pools.remove(key(pool.cluster, pool.name));
        usage.released(key(pool.cluster, pool.name), loop.now());
    }

    /** Scripted: every Kubernetes Job create is refused for good (an RBAC 403) until this is turned off. */
    void refuseJobCreates(boolean on) {
        refuseJobCreates = on;
    }

    /** Scripted: Jobs created from now on get no pods (a missing service account) until this is turned off. */
    void refusePods(boolean on) {
        refusePods = on;
    }

    /** Scripted: the RUNNING pool is RECONCILING for that long (GKE's auto-repair, an upgrade, a resize). */
    void reconcileNow(String poolName, Duration lasting) {
        scripted(
                        pools.values().stream()
                                .filter(pool -> pool.name.equals(poolName))
                                .toList(),
                        "node pool",
                        poolName)
                .forEach(pool -> reconcile(pool, lasting));
    }

    /**
     * Scripted: someone other than Falcon deletes the Kubernetes Job (an operator's kubectl delete) at once; its pods go
     * with it.
     */
    void deleteJobOutOfBand(String k8sJobName) {
        scripted(
                        jobs.values().stream()
                                .filter(job -> job.name.equals(k8sJobName))
                                .toList(),
                        "Kubernetes Job",
                        k8sJobName)
                .forEach(this::deleteByHand);
    }

    private void deleteByHand(KJob job) {
        String key = key(job.cluster, job.name);
        bury(job);
        jobs.remove(key);
        terminate(job);
        deletedJobs.put(key, loop.now());
        byHand.add(key);
        if (!job.finished()) {
            handDeleted.putIfAbsent(job.falconJobId, loop.now());
            handDeletedUid.putIfAbsent(job.falconJobId, job.uid);
            cause(job.falconJobId, Cause.JOB_DELETED_BY_HAND);
        } else {
            endedThenDeleted.putIfAbsent(job.falconJobId, loop.now());
        }
        scaleDownLater(job.cluster, job.pool);
    }

    /** Scripted: the last node of each multi-host pool that becomes RUNNING from now on registers this late. */
    void lastNodeDelay(Duration delay) {
        lastNodeDelay = Optional.of(delay);
    }

    /** Scripted: the pods bound from now on cannot pull their image for this long (a registry's transient error). */
    void pullFailsFor(Duration time) {
        pullFailsFor = Optional.of(time);
    }

    /** Scripted: the pods of Jobs deleted from now on take this long to go once their Job is deleted. */
    void podExitTime(Duration time) {
        podExitTime = Optional.of(time);
    }

    /** Nodes of pools that become RUNNING from now on register only after the delay (until the heal). */
    void nodeDelay(Duration delay) {
        nodeDelay = Optional.of(delay);
    }

    // ---- inspection, from the outside ----

    /** Creations per job and Kubernetes Job name ("job|name"): each attempt of a job has a Job of its own. */
    private static String createKey(EnsureJob command) {
        return command.jobId() + "|" + command.k8sJobName();
    }

    /** When a job's program failed (its pods exited with an error): the job must never be run again. */
    private final Map<String, Instant> programFailed = new HashMap<>();

    /** The Kubernetes Job whose program failed, per job. */
    private final Map<String, String> programFailedJob = new HashMap<>();

    /** Whether the executor reported a job's Kubernetes Job failed by its program (on the events topic by now). */
    private java.util.function.BiPredicate<String, String> programFailureReported = (job, name) -> true;

    void programFailureReported(java.util.function.BiPredicate<String, String> reported) {
        this.programFailureReported = reported;
    }

    /** Kubernetes Job creations per job, over all its attempts. */
    Map<String, Integer> jobCreates() {
        Map<String, Integer> perJob = new HashMap<>();
        jobCreates.forEach(
                (jobAndName, n) -> perJob.merge(jobAndName.substring(0, jobAndName.indexOf('|')), n, Integer::sum));
        return perJob;
    }

    /** Kubernetes Job creations per job and Job name ("job|name"): each attempt's Job is created once. */
    Map<String, Integer> jobCreatesByName() {
        return jobCreates;
    }

    Map<String, Instant> succeededJobs() {
        return succeeded;
    }

    /**
     * What the fleet did to the job that may end it Failed, and to the pool it held last (a pool another job began
     * to create may be handed over to it).
     */
    java.util.Set<Cause> causes(String falconJobId, Optional<String> poolName) {
        java.util.EnumSet<Cause> all = java.util.EnumSet.noneOf(Cause.class);
        all.addAll(causes.getOrDefault(falconJobId, java.util.EnumSet.noneOf(Cause.class)));
        poolName.ifPresent(pool -> all.addAll(poolCauses.getOrDefault(pool, java.util.EnumSet.noneOf(Cause.class))));
        return all;
    }

    private void cause(String falconJobId, Cause cause) {
        if (falconJobId != null && !falconJobId.isEmpty()) {
            causes.computeIfAbsent(falconJobId, k -> java.util.EnumSet.noneOf(Cause.class))
                    .add(cause);
        }
    }

    private void poolCause(String poolName, Cause cause) {
        poolCauses
                .computeIfAbsent(poolName, k -> java.util.EnumSet.noneOf(Cause.class))
                .add(cause);
    }

    private String jobOf(ClusterTarget cluster, String poolName) {
        Pool pool = pools.get(key(cluster, poolName));
        return pool == null ? "" : pool.labels.getOrDefault(FalconLabels.JOB, "");
    }

    /** Falcon jobs whose Job, deleted by hand, was created again by a command written before its creation was known. */
    java.util.Set<String> recreatedAfterHandDeletion() {
        return recreatedAfterHandDeletion;
    }

    /** When each Falcon job's unfinished Kubernetes Job was deleted by someone other than Falcon. */
    Map<String, Instant> handDeletedJobs() {
        return handDeleted;
    }

    /** The uid of the job's Kubernetes Job deleted by hand before it finished, if one was. */
    Optional<String> handDeletedUid(String jobId) {
        return Optional.ofNullable(handDeletedUid.get(jobId));
    }

    /** Jobs whose Kubernetes Job someone other than Falcon deleted after it had finished, and when. */
    Map<String, Instant> endedThenDeletedJobs() {
        return endedThenDeleted;
    }

    /**
     * Falcon's pools that exist, as cluster resource / pool name -> the falcon job of its creator (another owner's
     * pools are not Falcon's to clean up: {@link #foreignPools}).
     */
    Map<String, String> livePools() {
        Map<String, String> out = new LinkedHashMap<>();
        pools.values().stream()
                .filter(p -> !p.foreign)
                .forEach(p -> out.put(key(p.cluster, p.name), p.labels.getOrDefault(FalconLabels.JOB, "")));
        return out;
    }

    /** The Kubernetes Jobs that exist, as cluster resource / name -> falcon job id. */
    Map<String, String> liveJobs() {
        Map<String, String> out = new LinkedHashMap<>();
        jobs.values().forEach(j -> out.put(key(j.cluster, j.name), j.falconJobId));
        return out;
    }

    // ---- GkeApi ----

    @Override
    public Optional<PoolInfo> getPool(ClusterTarget cluster, String name) {
        maybeFail("getNodePool", jobOf(cluster, name));
        Pool pool = pools.get(key(cluster, name));
        if (pool == null || loop.now().isBefore(pool.visibleAt)) {
            return Optional.empty();
        }
        return Optional.of(info(pool));
    }

    @Override
    public String createPool(ClusterTarget cluster, EnsureNodePool command, Instant createdAt) {
        maybeFail("createNodePool", command.jobId());
        String key = key(cluster, command.nodePoolName());
        if (pools.containsKey(key)) {
            throw new ApiException(
                    ApiException.Kind.ALREADY_EXISTS,
                    "ALREADY_EXISTS: node pool " + command.nodePoolName() + " already exists");
        }
        refuseBeyondOperationLimit(cluster, command.nodePoolName());
        if (refusing(cluster, command.jobId())) {
            cause(command.jobId(), Cause.POOL_FAILED);
            poolCause(command.nodePoolName(), Cause.POOL_FAILED);
            throw new ApiException(
                    ApiException.Kind.PERMANENT,
                    "PERMISSION_DENIED: Required 'container.nodePools.create' permission for 'projects/"
                            + cluster.project() + "/locations/" + cluster.location() + "/clusters/" + cluster.name()
                            + "'.");
        }
        if (quotaExhausted || chance(faults.quota())) {
            cause(command.jobId(), Cause.POOL_FAILED);
            poolCause(command.nodePoolName(), Cause.POOL_FAILED);
            throw new ApiException(
                    ApiException.Kind.PERMANENT,
                    "RESOURCE_EXHAUSTED: Quota 'TPUS_PER_PROJECT' exceeded. Limit: 64.0 in region us-central1.");
        }
        int hosts = vms(command.tpuType(), command.topology());
        Optional<String> reservation =
                command.supplyMode() == SupplyMode.RESERVATION ? command.reservation() : Optional.empty();
        if (reservation.isPresent() && free(cluster, reservation.get()) < hosts) {
            throw new ApiException(
                    ApiException.Kind.PERMANENT,
                    "RESOURCE_EXHAUSTED: reservation " + reservation.get() + " does not have enough free capacity");
        }
        Map<String, String> labels = new HashMap<>(ownership.labels(command.jobId(), command.topology()));
        Pool pool = new Pool(
                cluster,
                command.nodePoolName(),
                hosts,
                labels,
                reservation,
                Instant.ofEpochSecond(createdAt.getEpochSecond()));
        pool.creatorJobId = command.jobId();
        pool.chips = hosts * chipsPerVm(command.tpuType(), command.topology());
        boolean flex = command.supplyMode() == null || command.supplyMode() == SupplyMode.FLEX_START;
        pool.visibleAt = flex ? loop.now().plus(timings.flexInvisible(rnd)) : loop.now();
        pool.fromZero = flex;
        pool.createdFlex = flex;
        pool.scaleDownAfter = Duration.ofMinutes(10 + rnd.nextInt(360));
        if (!flex) {
            // the consolidation delay Falcon sets on reservation and on-demand pools (its default)
            pool.scaleDownAfter = Duration.ofMinutes(10);
        }
        String op = "operation-" + (++opSeq);
        pool.createOp = op;
        pool.createOpName = op;
        boolean slow = chance(faults.slowPool());
        Duration provisioning = slow ? Duration.ofMinutes(11 + rnd.nextInt(10)) : timings.poolCreate(rnd, hosts);
        boolean errors = chance(faults.poolError());
        if (slow) {
            cause(command.jobId(), Cause.POOL_SLOW);
            poolCause(command.nodePoolName(), Cause.POOL_SLOW);
        }
        if (errors) {
            cause(command.jobId(), Cause.POOL_FAILED);
            poolCause(command.nodePoolName(), Cause.POOL_FAILED);
        }
        operations.put(
                op,
                new Op(
                        loop.now().plus(provisioning),
                        errors
                                ? Optional.of("Failed to create node pool: TPU capacity unavailable in zone")
                                : Optional.empty()));
        pool.nodesNever = !healed && chance(faults.neverNodes());
        boolean late = chance(faults.lateNodes());
        pools.put(key, pool);
        createStarted.put(key, loop.now());
        loop.after(provisioning, () -> provisioned(pool, errors, late));
        maybeFailAfter("createNodePool", command.jobId());
        return op;
    }

    private void provisioned(Pool pool, boolean errors, boolean late) {
        if (pools.get(key(pool.cluster, pool.name)) != pool || pool.stopping) {
            return;
        }
        pool.createOp = null;
        if (pool.reservation.isPresent() && free(pool.cluster, pool.reservation.get()) < pool.hosts) {
            // As GKE: the reservation is consumed when the VMs come up, so two pools asked for while one slice was
            // free race, and the later one fails here, after the create RPC was accepted.
            String error = "RESOURCE_EXHAUSTED: Reservation 'projects/" + pool.cluster.project() + "/reservations/"
                    + pool.reservation.get() + "' does not have enough available capacity: requested " + pool.hosts
                    + ", available " + Math.max(0, free(pool.cluster, pool.reservation.get())) + ".";
            operations.put(pool.createOpName, new Op(loop.now(), Optional.of(error)));
            pool.status = PoolStatus.ERROR;
            pool.statusMessage = error;
            return;
        }
        pool.consumesReservation = pool.reservation.isPresent();
        pool.reservation.ifPresent(r ->
                usage.holding(key(pool.cluster, pool.name), pool.cluster.project() + "/" + r, pool.chips, loop.now()));
        if (errors) {
            if (rnd.nextBoolean()) {
                pool.status = PoolStatus.ERROR;
                pool.statusMessage = "Failed to create node pool: TPU capacity unavailable in zone";
            } else {
                pools.remove(key(pool.cluster, pool.name)); // GKE removed the pool of the failed operation
                usage.released(key(pool.cluster, pool.name), loop.now());
            }
            return;
        }
        pool.status = PoolStatus.RUNNING;
        succeededDuringOutage(pool.cluster);
        if (!healed && reality.reconcile() > 0 && realityRnd.nextDouble() < reality.reconcile()) {
            // GKE works on the pool for a while (auto-repair, an upgrade, a resize): RECONCILING, then RUNNING
            Duration after = Duration.ofMinutes(1 + realityRnd.nextInt(60));
            Duration lasting = Duration.ofMinutes(1 + realityRnd.nextInt(30));
            loop.after(after, () -> reconcile(pool, lasting));
        }
        if (healed) {
            pool.nodesNever = false; // a fault drawn before the heal does not outlive it
        } else if (chance(faults.vanish())) {
            loop.after(Duration.ofMinutes(1 + rnd.nextInt(180)), () -> {
                if (!healed && pools.get(key(pool.cluster, pool.name)) == pool && !pool.stopping) {
                    vanish(pool);
                }
            });
        }
        if (pool.fromZero) {
            pool.nodesNever = false;
            scaleUp(pool); // no nodes until a pod asks for them
            return;
        }
        if (nodeDelay.isPresent() && !healed) {
            pool.nodesNever = true; // registered by the heal, or by the scripted delay below
            loop.after(nodeDelay.get(), () -> {
                if (pool.nodesNever) {
                    pool.nodesNever = false;
                    registerNodes(pool, Duration.ofSeconds(10));
                }
            });
        } else if (lastNodeDelay.isPresent() && pool.hosts > 1 && !healed) {
            // scripted: all but the last node come at once, the last one late
            registerNodes(pool, Duration.ofSeconds(30), pool.hosts - 1);
            int gen = pool.nodeGen;
            loop.after(lastNodeDelay.get(), () -> {
                if (pool.nodeGen == gen) {
                    registerNodes(pool, Duration.ofSeconds(1), 1);
                }
            });
        } else if (!pool.nodesNever) {
            registerNodes(
                    pool,
                    late ? Duration.ofMinutes(15 + rnd.nextInt(30)) : timings.nodesRegisterWithin(rnd, pool.hosts));
        }
    }

    /** The pool is RECONCILING for a while and RUNNING again; its nodes stay as they are. */
    private void reconcile(Pool pool, Duration lasting) {
        if (healed
                || pools.get(key(pool.cluster, pool.name)) != pool
                || pool.stopping
                || pool.status != PoolStatus.RUNNING) {
            return;
        }
        pool.status = PoolStatus.RECONCILING;
        pool.statusMessage = "Repairing nodes";
        loop.after(lasting, () -> {
            if (pools.get(key(pool.cluster, pool.name)) == pool && pool.status == PoolStatus.RECONCILING) {
                pool.status = PoolStatus.RUNNING;
                pool.statusMessage = "";
                scaleUp(pool); // pods that came meanwhile ask for nodes now
            }
        });
    }

    /**
     * The autoscaler asks for the slice's VMs when a pod selecting the pool waits for nodes; flex-start capacity
     * comes after a while (sometimes a long while, and in a stockout not before the heal), all VMs of the slice at
     * once.
     */
    private void scaleUp(Pool pool) {
        // a pool scaled down after it came with its nodes draws on a stream of its own: the seeds' other draws stay
        Random r = pool.createdFlex ? rnd : scaleRnd;
        if (!pool.fromZero
                || pool.scaling
                || pool.stopping
                || pool.status != PoolStatus.RUNNING
                || pool.registered >= pool.hosts
                || !wanted(pool)
                || (pool.stockedOut && !healed)) {
            return;
        }
        if (!healed && (stockout || chance(faults.neverNodes(), r))) {
            pool.stockedOut = true;
            return;
        }
        pool.scaling = true;
        Duration wait = !healed && chance(faults.lateNodes(), r)
                ? Duration.ofMinutes(15 + r.nextInt(45))
                : timings.flexCapacity(r);
        loop.after(wait, () -> {
            pool.scaling = false;
            if (pools.get(key(pool.cluster, pool.name)) == pool && !pool.stopping && wanted(pool)) {
                registerNodes(pool, Duration.ofSeconds(30));
            } else {
                scaleUp(pool);
            }
        });
    }

    /** A Job that has not finished selects the pool and its pods wait. */
    private boolean wanted(Pool pool) {
        return jobs.values().stream()
                .anyMatch(j -> same(j.cluster, pool.cluster)
                        && j.pool.equals(pool.name)
                        && !j.finished()
                        && !j.podsRefused // no pod asks for nodes
                        && "Pending".equals(j.podPhase));
    }

    /**
     * The autoscaler takes an idle pool's nodes away once they have been unneeded (no Job's pods on them) for the
     * pool's consolidation delay, the whole slice at once (a multi-host slice scales atomically between 0 and all of
     * its VMs): a flex-start pool after its Job, a reservation or on-demand one also while its nodes are still
     * registering and no Job is there yet (its VMs that had not registered are not created any more). It comes back
     * for pending pods that select it.
     */
    private void scaleDownLater(ClusterTarget cluster, String name) {
        Pool pool = pools.get(key(cluster, name));
        if (pool == null || (!pool.fromZero && !pool.createdFlex && pool.status != PoolStatus.RUNNING)) {
            return;
        }
        if (pool.createdFlex && !pool.fromZero) {
            return;
        }
        loop.after(pool.scaleDownAfter, () -> {
            boolean busy = jobs.values().stream()
                    .anyMatch(j -> same(j.cluster, pool.cluster) && j.pool.equals(pool.name) && !j.finished());
            if (pools.get(key(pool.cluster, pool.name)) == pool
                    && !pool.stopping
                    && pool.status == PoolStatus.RUNNING
                    && !busy
                    && !pool.scaling
                    && pool.registered > 0) {
                pool.registered = 0;
                pool.ready = 0;
                pool.nodeGen++;
                pool.fromZero = true; // back for pending pods
                pool.nodesNever = false;
            }
        });
    }

    private void registerNodes(Pool pool, Duration within) {
        registerNodes(pool, within, pool.hosts);
    }

    private void registerNodes(Pool pool, Duration within, int count) {
        int gen = pool.nodeGen;
        for (int i = 0; i < count; i++) {
            Duration at = Duration.ofMillis((long) (rnd.nextDouble() * within.toMillis()));
            loop.after(at, () -> {
                if (pools.get(key(pool.cluster, pool.name)) == pool
                        && !pool.stopping
                        && pool.nodeGen == gen
                        && pool.registered < pool.hosts) {
                    pool.registered++;
                    if (pool.registered == 1 && !pool.createdFlex && !pool.fromZero) {
                        // its first node is there: unneeded until a Job's pods come
                        scaleDownLater(pool.cluster, pool.name);
                    }
                    loop.after(timings.nodeReady(rnd), () -> {
                        if (pools.get(key(pool.cluster, pool.name)) == pool
                                && !pool.stopping
                                && pool.nodeGen == gen
                                && pool.ready < pool.registered) {
                            pool.ready++;
                            schedulePods();
                        }
                    });
                }
            });
        }
    }

    @Override
    public String deletePool(ClusterTarget cluster, String name) {
        maybeFail("deleteNodePool");
        String key = key(cluster, name);
        Pool pool = pools.get(key);
        if (pool == null || loop.now().isBefore(pool.visibleAt)) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, "NOT_FOUND: node pool " + name + " not found");
        }
        if (pool.createOp != null) {
            throw new ApiException(
                    ApiException.Kind.FAILED_PRECONDITION,
                    "FAILED_PRECONDITION: Operation " + pool.createOp + " is currently creating node pool " + name
                            + ". Please wait and try again.");
        }
        if (pool.stopping) {
            throw new ApiException(
                    ApiException.Kind.FAILED_PRECONDITION,
                    "FAILED_PRECONDITION: node pool " + name + " is being deleted. Please wait and try again.");
        }
        if (pool.status == PoolStatus.RECONCILING) {
            // as GKE: one operation at a time on a pool (the repair or upgrade running now)
            throw new ApiException(
                    ApiException.Kind.FAILED_PRECONDITION,
                    "FAILED_PRECONDITION: Cluster is running incompatible operation operation-repair-" + name
                            + ". Please wait and try again.");
        }
        refuseBeyondOperationLimit(cluster, name);
        // A pool in ERROR (its creation failed: a reservation race, GKE's error) gives its Jobs nothing to lose: the
        // executor deletes it so that the name can be created again, also under the pending pods of a Job waiting
        // for it to come back.
        for (KJob job : jobs.values()) {
            if (same(job.cluster, cluster) && job.pool.equals(name) && pool.status != PoolStatus.ERROR) {
                onPoolLoss.accept(new PoolLoss(name, job.falconJobId, loop.now()));
            }
        }
        if (pool.foreign) {
            foreignDeleted.add(key);
        }
        PoolStatus before = pool.status;
        pool.stopping = true;
        pool.status = PoolStatus.STOPPING;
        deleteStarted.put(key, loop.now());
        pool.ready = 0;
        failPodsOn(pool);
        terminating.removeIf(t -> t.cluster.equals(pool.cluster) && t.pool.equals(pool.name));
        String op = "operation-" + (++opSeq);
        boolean fails = chance(faults.deleteFails());
        Duration deleting = timings.poolDelete(rnd, pool.hosts);
        operations.put(
                op,
                new Op(
                        loop.now().plus(deleting),
                        fails ? Optional.of("Failed to delete node pool: internal error") : Optional.empty()));
        loop.after(deleting, () -> {
            if (pools.get(key) != pool) {
                return;
            }
            if (fails) {
                // GKE leaves the pool as it was: a pool in ERROR stays in ERROR (it has no nodes to come back)
                pool.stopping = false;
                pool.status = before;
            } else {
                pools.remove(key);
                usage.released(key, loop.now());
            }
        });
        maybeFailAfter("deleteNodePool");
        return op;
    }

    @Override
    public OperationInfo operation(ClusterTarget cluster, String operation) {
        maybeFail("getOperation", operationJob(cluster, operation));
        Op op = operations.get(operation);
        if (op == null) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, "NOT_FOUND: operation " + operation);
        }
        boolean done = !loop.now().isBefore(op.doneAt());
        return new OperationInfo(done, done ? op.error() : Optional.empty(), done ? "DONE" : "RUNNING");
    }

    @Override
    public PoolOperations operations(ClusterTarget cluster, String pool) {
        maybeFail("listOperations", jobOf(cluster, pool));
        return new PoolOperations(
                Optional.ofNullable(createStarted.get(key(cluster, pool))),
                Optional.ofNullable(deleteStarted.get(key(cluster, pool))));
    }

    @Override
    public List<PoolInfo> listPools(ClusterTarget cluster) {
        maybeFail("listNodePools");
        List<PoolInfo> out = new ArrayList<>();
        for (Pool pool : pools.values()) {
            if (same(pool.cluster, cluster) && !loop.now().isBefore(pool.visibleAt)) {
                out.add(info(pool));
            }
        }
        return out;
    }

    @Override
    public Capacity reservation(ClusterTarget cluster, String reservation) {
        maybeFail("reservations.get");
        Integer count = reservationHosts.get(cluster.project() + "/" + reservation);
        if (count == null) {
            throw new ApiException(ApiException.Kind.NOT_FOUND, "reservation " + reservation + " not found");
        }
        return new Capacity(cluster.project() + "/" + reservation, count, count - free(cluster, reservation));
    }

    private int free(ClusterTarget cluster, String reservation) {
        int count = reservationHosts.getOrDefault(cluster.project() + "/" + reservation, 0);
        // only pools whose VMs came up hold the reservation (GKE's inUseCount)
        int used = pools.values().stream()
                .filter(p -> p.consumesReservation
                        && p.reservation.filter(reservation::equals).isPresent()
                        && p.cluster.project().equals(cluster.project()))
                .mapToInt(p -> p.hosts)
                .sum();
        return count - used;
    }

    /**
     * GKE runs node-pool operations of one cluster side by side only up to a limit (when the timings set one): beyond
     * it, a create or delete is refused as while a cluster-level operation runs, and nothing was done.
     */
    private void refuseBeyondOperationLimit(ClusterTarget cluster, String pool) {
        int limit = timings.poolOperationsAtOnce();
        if (limit <= 0) {
            return;
        }
        long running = pools.values().stream()
                .filter(p -> same(p.cluster, cluster) && (p.createOp != null || p.stopping))
                .count();
        if (running >= limit) {
            throw new ApiException(
                    ApiException.Kind.FAILED_PRECONDITION,
                    "FAILED_PRECONDITION: Cluster is running incompatible operation on node pools (" + running
                            + " running); node pool " + pool + " not changed. Please wait and try again.");
        }
    }

    /** The job of the pool an operation is about (create operations are kept with their pool). */
    private String operationJob(ClusterTarget cluster, String operation) {
        return pools.values().stream()
                .filter(p -> same(p.cluster, cluster) && operation.equals(p.createOpName))
                .map(p -> p.labels.getOrDefault(FalconLabels.JOB, ""))
                .findFirst()
                .orElse("");
    }

    private PoolInfo info(Pool pool) {
        return new PoolInfo(
                pool.name,
                pool.status,
                pool.statusMessage,
                pool.labels,
                Optional.of(pool.createdAt),
                pool.hosts,
                Optional.of(pool.creatorJobId).filter(id -> !id.isEmpty()));
    }

    // ---- EdgeApi ----

    @Override
    public NodeCount nodes(ClusterTarget cluster, String pool) {
        maybeFail("nodes.list");
        return nodesSeen(cluster, pool);
    }

    /** The pool's nodes as a synced node informer's cache has them (no API call, so no API error). */
    NodeCount nodesSeen(ClusterTarget cluster, String pool) {
        Pool p = pools.get(key(cluster, pool));
        return p == null ? new NodeCount(0, 0) : new NodeCount(p.registered, p.ready);
    }

    @Override
    public String createJob(ClusterTarget cluster, EnsureJob command) {
        maybeFail("jobs.create", command.jobId());
        String key = key(cluster, command.k8sJobName());
        if (jobs.containsKey(key)) {
            throw new ApiException(
                    ApiException.Kind.ALREADY_EXISTS, "jobs.batch \"" + command.k8sJobName() + "\" already exists");
        }
        Instant deleted = deletedJobs.get(key);
        if (deleted != null && byHand.contains(key) && command.jobUid().isEmpty()) {
            // Deleted by someone else, and created again by a command written before Falcon had seen it created (a
            // redelivery of the batch the executor crashed in): no one could have told the two apart. Falcon must
            // notice that the Job it saw is gone (another uid) and end the job.
            recreatedAfterHandDeletion.add(command.jobId());
        } else if (deleted != null) {
            violations.add("Kubernetes Job " + command.k8sJobName() + " of " + command.jobId() + " created at "
                    + loop.now() + " after it was deleted at " + deleted);
        }
        if (refusing(cluster, command.jobId())) {
            cause(command.jobId(), Cause.SUBMIT_REFUSED);
            throw new ApiException(
                    ApiException.Kind.PERMANENT,
                    "admission webhook \"tpu-freeze.policy.example.com\" denied the request: TPU Job creation is"
                            + " frozen on this cluster during its upgrade");
        }
        if (refuseJobCreates
                || (!healed && reality.submitRefusal() > 0 && realityRnd.nextDouble() < reality.submitRefusal())) {
            cause(command.jobId(), Cause.SUBMIT_REFUSED);
            throw new ApiException(
                    ApiException.Kind.PERMANENT,
                    realityRnd.nextBoolean()
                            ? "jobs.batch is forbidden: User \"system:serviceaccount:falcon:falcon-executor\" cannot"
                                    + " create resource \"jobs\" in API group \"batch\" in the namespace \"tpu-jobs\""
                            : "admission webhook \"validate.policy.example.com\" denied the request: TPU Jobs"
                                    + " need a cost-center label");
        }
        boolean podsRefused =
                refusePods || (!healed && reality.podsRefused() > 0 && realityRnd.nextDouble() < reality.podsRefused());
        if (podsRefused) {
            cause(command.jobId(), Cause.PODS_REFUSED);
        }
        // at most one attempt of a job is live: the Job of the last one is gone before the next is created
        for (KJob other : jobs.values()) {
            if (other.falconJobId.equals(command.jobId()) && !other.name.equals(command.k8sJobName())) {
                violations.add("Kubernetes Job " + command.k8sJobName() + " of " + command.jobId() + " created at "
                        + loop.now() + " while its Job " + other.name + " still exists");
            }
        }
        // a program that failed fails again: once Falcon was told so, it is never run again (a report of it that was
        // lost, with the executor down or its Job deleted by hand meanwhile, leaves Falcon nothing to go by)
        if (programFailed.containsKey(command.jobId())
                && !jobCreates.containsKey(createKey(command))
                && programFailureReported.test(command.jobId(), programFailedJob.get(command.jobId()))) {
            violations.add("job " + command.jobId() + " run again at " + loop.now() + " (Job " + command.k8sJobName()
                    + ") after its program failed at " + programFailed.get(command.jobId()));
        }
        Scenario.JobPlan plan = plans.get(command.jobId());
        int pods = vms(command.tpuType(), command.topology());
        KJob job = new KJob(
                cluster,
                command.k8sJobName(),
                "uid-" + (++uidSeq),
                command.jobId(),
                command.nodePoolName(),
                pods,
                loop.now(),
                plan);
        job.podsRefused = podsRefused;
        jobs.put(key, job);
        jobCreates.merge(createKey(command), 1, Integer::sum);
        if (!healed && handRnd.nextDouble() < faults.handDelete()) {
            // an operator deletes it by hand, whether it runs, waits for nodes or has finished
            loop.after(Duration.ofSeconds(30 + handRnd.nextInt(3 * 3600)), () -> {
                if (!healed && jobs.get(key) == job) {
                    deleteByHand(job);
                }
            });
        }
        Optional.ofNullable(pools.get(key(cluster, command.nodePoolName()))).ifPresent(this::scaleUp);
        schedulePods();
        maybeFailAfter("jobs.create", command.jobId());
        return job.uid;
    }

    @Override
    public Optional<FoundJob> findJob(ClusterTarget cluster, String name) {
        maybeFail("jobs.get");
        return Optional.ofNullable(jobs.get(key(cluster, name)))
                .map(j -> new FoundJob(
                        j.name,
                        j.uid,
                        ownership.labels(j.falconJobId, null),
                        Optional.of(j.falconJobId),
                        j.conditions.stream().anyMatch(c -> c.isTrue("Complete"))));
    }

    @Override
    public boolean deleteJob(ClusterTarget cluster, String name) {
        maybeFail("jobs.delete");
        String key = key(cluster, name);
        KJob job = jobs.remove(key);
        if (job != null) {
            usage.stopped(key, loop.now());
            bury(job);
            terminate(job);
            deletedJobs.put(key, loop.now());
            scaleDownLater(job.cluster, job.pool);
        }
        maybeFailAfter("jobs.delete");
        return job != null;
    }

    /**
     * The Job is deleted: its running pods get SIGTERM and go when their workload has exited, within the pod's
     * termination grace period (30 s by default; half of them exit within 3 s); pods that never ran or had finished
     * go at once.
     */
    private void terminate(KJob job) {
        if (!"Running".equals(job.podPhase) || job.finished()) {
            return;
        }
        Duration grace = podExitTime.orElseGet(() -> graceRnd.nextBoolean()
                ? Duration.ofMillis(graceRnd.nextInt(3_000))
                : Duration.ofMillis(3_000 + graceRnd.nextInt(27_000)));
        Terminating t = new Terminating(
                job.cluster,
                job.pool,
                job.falconJobId,
                job.name,
                job.uid,
                job.pods,
                loop.now().plus(grace));
        terminating.add(t);
        loop.after(grace, () -> terminating.remove(t));
    }

    @Override
    public int unfinishedPods(ClusterTarget cluster, String k8sJobName) {
        maybeFail("pods.list");
        int n = 0;
        for (Terminating t : terminating) {
            if (t.cluster.equals(cluster) && t.name.equals(k8sJobName)) {
                n += t.pods;
            }
        }
        KJob live = jobs.get(key(cluster, k8sJobName));
        if (live != null && live.podDisruption.filter(PodDisruption::visible).isPresent()) {
            n += (int) podViewsOf(live).stream().filter(JobReports::unfinished).count();
        } else if (live != null
                && !live.finished()
                && !"Succeeded".equals(live.podPhase)
                && !"Failed".equals(live.podPhase)) {
            n += live.pods;
        }
        return n;
    }

    /** The Falcon Jobs of a cluster and their pods, as the informers see them. */
    List<JobView> jobViews(ClusterTarget cluster) {
        return jobs.values().stream()
                .filter(j -> same(j.cluster, cluster))
                .map(SimFleet::view)
                .toList();
    }

    List<PodView> podViews(ClusterTarget cluster) {
        List<PodView> out = new ArrayList<>();
        for (KJob job : jobs.values()) {
            if (same(job.cluster, cluster)) {
                out.addAll(podViewsOf(job));
            }
        }
        for (Terminating t : terminating) {
            if (!same(t.cluster, cluster)) {
                continue;
            }
            for (int i = 0; i < t.pods; i++) {
                out.add(new PodView(
                        t.name + "-" + i,
                        Optional.of(t.name),
                        Optional.of(t.uid),
                        "Running",
                        true,
                        Optional.empty(),
                        Optional.empty(),
                        "",
                        "",
                        false,
                        List.of()));
            }
        }
        return out;
    }

    /** The pods of one Job as an informer sees them now. */
    private List<PodView> podViewsOf(KJob job) {
        List<PodView> out = new ArrayList<>();
        if (job.podsRefused) {
            return out;
        }
        if (job.podDisruption.filter(PodDisruption::visible).isPresent()) {
            PodDisruption d = job.podDisruption.get();
            for (int i = 0; i < job.pods; i++) {
                boolean disrupted = i == d.pod;
                if (disrupted ? d.gone : d.siblingsGone) {
                    continue;
                }
                out.add(new PodView(
                        job.name + "-" + i,
                        Optional.of(job.name),
                        Optional.of(job.uid),
                        disrupted ? d.phase : d.siblingsPhase,
                        disrupted ? d.deleting : d.siblingsDeleting,
                        Optional.of(job.createdAt),
                        Optional.ofNullable(job.scheduledAt),
                        disrupted ? d.podReason : "",
                        disrupted ? d.podMessage : "",
                        false,
                        List.of(new PodView.Container(
                                disrupted ? d.terminated : d.siblingsTerminated, Optional.empty(), Optional.empty())),
                        disrupted ? Optional.of(d.reason) : Optional.empty()));
            }
            return out;
        }
        Pool pool = pools.get(key(job.cluster, job.pool));
        boolean unschedulable = "Pending".equals(job.podPhase)
                && (pool == null || pool.stopping || pool.ready < Math.max(job.pods, pool.hosts));
        for (int i = 0; i < job.pods; i++) {
            out.add(new PodView(
                    job.name + "-" + i,
                    Optional.of(job.name),
                    Optional.of(job.uid),
                    job.podPhase,
                    false,
                    Optional.of(job.createdAt),
                    Optional.ofNullable(job.scheduledAt),
                    "",
                    "",
                    unschedulable,
                    List.of(new PodView.Container(job.terminated, Optional.empty(), job.waiting)),
                    job.disruption));
        }
        return out;
    }

    /** A Job's last state when it was removed, as the delete event of a watch carries it. */
    record Tombstone(JobView job, List<PodView> pods, Instant at) {}

    private final Map<String, Tombstone> tombstones = new HashMap<>();

    /**
     * The Job's state when it was removed (what an informer's delete event carries: a watch delivers every change
     * before the deletion, so a Job that completed just before it was deleted is seen completed).
     */
    Optional<Tombstone> tombstone(ClusterTarget cluster, String name) {
        return Optional.ofNullable(tombstones.get(key(cluster, name)));
    }

    private void bury(KJob job) {
        tombstones.put(key(job.cluster, job.name), new Tombstone(view(job), podViewsOf(job), loop.now()));
    }

    private static JobView view(KJob job) {
        Map<String, String> annotations = Map.of(
                FalconLabels.ANNOTATION_JOB_ID,
                job.falconJobId,
                FalconLabels.ANNOTATION_CLUSTER_ID,
                job.cluster.clusterId(),
                FalconLabels.ANNOTATION_TPU_TYPE,
                job.cluster.tpuType(),
                FalconLabels.ANNOTATION_EXPECTED_PODS,
                Integer.toString(job.pods));
        return new JobView(
                job.name,
                job.uid,
                annotations,
                io.falcon.executor.core.Ownership.DEFAULT.labels(job.falconJobId, null),
                Optional.of(job.createdAt),
                false,
                job.conditions,
                job.pods,
                Optional.of(job.pool));
    }

    // ---- pods ----

    /** Pods run once the pool their Job names has all its nodes Ready; they finish after the planned time. */
    private void schedulePods() {
        for (KJob job : List.copyOf(jobs.values())) {
            if (job.runScheduled
                    || job.finished()
                    || job.podsRefused
                    || job.plan == null
                    || job.plan.outcome() == Scenario.Outcome.NEVER_SCHEDULED) {
                continue;
            }
            Pool pool = pools.get(key(job.cluster, job.pool));
            if (pool == null || pool.stopping || pool.ready < Math.max(job.pods, pool.hosts)) {
                continue;
            }
            job.runScheduled = true;
            if (job.plan.outcome() == Scenario.Outcome.IMAGE_PULL) {
                // bound to their nodes, where the image cannot be pulled (delays on the pull stream: the other
                // draws of a seed stay as they were)
                loop.after(Duration.ofSeconds(1 + pullRnd.nextInt(10)), () -> {
                    if (jobs.get(key(job.cluster, job.name)) == job && !job.finished()) {
                        job.scheduledAt = loop.now();
                        job.waiting = Optional.of(new PodView.Waiting("ImagePullBackOff", "Back-off pulling image"));
                    }
                });
                continue;
            }
            loop.after(timings.podStart(rnd), () -> {
                if (jobs.get(key(job.cluster, job.name)) != job || job.finished() || !"Pending".equals(job.podPhase)) {
                    return;
                }
                job.scheduledAt = loop.now();
                if (pullFailsFor.isPresent() || (!healed && pullRnd.nextDouble() < faults.pullError())) {
                    // the registry fails the first pulls; the kubelet's retry gets the image
                    job.waiting = Optional.of(
                            new PodView.Waiting("ErrImagePull", "failed to pull image: 503 Service Unavailable"));
                    pulledLate.add(job.falconJobId);
                    loop.after(pullFailsFor.orElseGet(() -> Duration.ofSeconds(10 + pullRnd.nextInt(80))), () -> {
                        if (jobs.get(key(job.cluster, job.name)) == job
                                && !job.finished()
                                && "Pending".equals(job.podPhase)) {
                            job.waiting = Optional.empty();
                            run(job);
                        }
                    });
                    return;
                }
                run(job);
            });
        }
    }

    private void run(KJob job) {
        job.podPhase = "Running";
        Pool on = pools.get(key(job.cluster, job.pool));
        usage.started(
                key(job.cluster, job.name),
                job.falconJobId,
                on == null
                        ? ""
                        : on.reservation
                                .map(r -> job.cluster.project() + "/" + r)
                                .orElse(""),
                job.pods * chipsPerVm(job.plan.tpuType(), job.plan.topology()),
                loop.now());
        succeededDuringOutage(job.cluster);
        sharedPool(job);
        loop.after(job.plan.runFor(), () -> finish(job));
        drawDisruptions(job);
    }

    /**
     * What the fleet does to the running Job before its program ends, each fault drawn on its own stream (a fixed
     * number of draws per Job, so one fault's draws never shift another's): a pod evicted or preempted, a node of its
     * slice gone, a device isolated.
     */
    private void drawDisruptions(KJob job) {
        if (healed) {
            return;
        }
        long runMs = job.plan.runFor().toMillis();
        if (evictRnd.nextDouble() < faults.podEvicted()) {
            Duration at = Duration.ofMillis((long) (evictRnd.nextDouble() * runMs));
            String reason = evictRnd.nextBoolean() ? "EvictionByEvictionAPI" : "PreemptionByScheduler";
            int pod = evictRnd.nextInt(job.pods);
            Duration grace = exitTime(evictRnd);
            Duration siblingsGrace = exitTime(evictRnd);
            loop.after(at, () -> {
                if (disruptable(job)) {
                    evict(job, pod, reason, grace, siblingsGrace);
                }
            });
        }
        if (hostRnd.nextDouble() < faults.hostMaintenance()) {
            Duration at = Duration.ofMillis((long) (hostRnd.nextDouble() * runMs));
            boolean notice = hostRnd.nextBoolean();
            int pod = hostRnd.nextInt(job.pods);
            Duration grace = exitTime(hostRnd);
            Duration siblingsGrace = exitTime(hostRnd);
            Duration away = Duration.ofMinutes(6 + hostRnd.nextInt(25));
            loop.after(at, () -> {
                if (disruptable(job)) {
                    hostDown(job, pod, notice, grace, siblingsGrace, away);
                }
            });
        }
        if (deviceRnd.nextDouble() < faults.deviceIsolated()) {
            Duration at = Duration.ofMillis((long) (deviceRnd.nextDouble() * runMs));
            int pod = deviceRnd.nextInt(job.pods);
            int device = deviceRnd.nextInt(Math.max(1, chipsPerVm(job.plan.tpuType(), job.plan.topology())));
            // fault-streams' job window (software faults on peers) and counter decide it a while after the fault
            Duration decided = Duration.ofSeconds(5 + deviceRnd.nextInt(176));
            loop.after(at, () -> {
                if (!healed
                        && jobs.get(key(job.cluster, job.name)) == job
                        && !job.finished()
                        && "Running".equals(job.podPhase)) {
                    isolate(job, pod, device, decided);
                }
            });
        }
    }

    /** How long a workload takes to exit after SIGTERM: half within 3 s, the rest up to the 30 s default grace. */
    private static Duration exitTime(Random r) {
        return r.nextBoolean() ? Duration.ofMillis(r.nextInt(3_000)) : Duration.ofMillis(3_000 + r.nextInt(27_000));
    }

    /** The Job runs, and nothing has ended or disrupted it yet; the faults stop at the heal. */
    private boolean disruptable(KJob job) {
        return !healed
                && jobs.get(key(job.cluster, job.name)) == job
                && !job.finished()
                && "Running".equals(job.podPhase)
                && job.podDisruption.isEmpty();
    }

    /** The node a pod of the Job runs on, as GKE names a node pool's nodes. */
    private static String nodeName(KJob job, int pod) {
        return "gke-" + job.cluster.name() + "-" + job.pool + "-" + pod;
    }

    /**
     * A pod is evicted (the Eviction API: a drain) or preempted by the scheduler; its node stays. Kubernetes sets
     * the DisruptionTarget condition and deletes the pod; the Job controller counts a deleted pod as failed at once
     * (no podFailurePolicy), so the Job fails (backoffLimit 0) and its other pods are deleted; each terminates in its
     * grace and ends Failed (the workload's exit on SIGTERM), and is then removed.
     */
    private void evict(KJob job, int pod, String reason, Duration grace, Duration siblingsGrace) {
        PodDisruption d = new PodDisruption(pod);
        d.reason = reason;
        d.deleting = true;
        job.podDisruption = Optional.of(d);
        cause(job.falconJobId, Cause.POD_EVICTED);
        loop.after(grace, () -> {
            d.phase = "Failed";
            d.terminated = Optional.of(new PodView.Terminated(143, "Error"));
        });
        loop.after(grace.plus(SEEN_BEFORE_REMOVAL), () -> d.gone = true);
        jobFailed(job, d, siblingsGrace);
    }

    /**
     * A node under the running Job goes away for a while (TPU host maintenance: the VM is stopped and comes back;
     * or it is terminated without notice), as Kubernetes 1.31 handles it. With notice, the kubelet's graceful node
     * shutdown kills the pod within its grace and marks it (Failed, reason Terminated, DisruptionTarget
     * TerminationByKubelet); the pod object stays. Without, the node is NotReady: its kubelet reports nothing, and
     * after the default 300 s toleration of the not-ready/unreachable taints the taint manager deletes the pod
     * (DisruptionTarget DeletionByTaintManager), which stays terminating until the node is back. Either way the Job
     * fails (backoffLimit 0) and its other pods are deleted. The node is Ready again when the VM is back.
     */
    private void hostDown(KJob job, int pod, boolean notice, Duration grace, Duration siblingsGrace, Duration away) {
        Pool pool = pools.get(key(job.cluster, job.pool));
        if (pool == null || pool.stopping || pool.ready == 0) {
            return;
        }
        int gen = pool.nodeGen;
        pool.ready--;
        PodDisruption d = new PodDisruption(pod);
        d.nodeUnreachable = !notice;
        job.podDisruption = Optional.of(d);
        cause(job.falconJobId, Cause.HOST_LOST);
        String key = key(job.cluster, job.name);
        if (notice) {
            loop.after(grace, () -> {
                if (jobs.get(key) == job && !job.finished()) {
                    d.reason = "TerminationByKubelet";
                    d.phase = "Failed";
                    d.podReason = "Terminated";
                    d.podMessage = "Pod was terminated in response to imminent node shutdown.";
                    d.terminated = Optional.of(new PodView.Terminated(143, "Error"));
                    jobFailed(job, d, siblingsGrace);
                }
            });
        } else {
            loop.after(Duration.ofSeconds(300), () -> {
                if (jobs.get(key) == job && !job.finished()) {
                    d.reason = "DeletionByTaintManager";
                    d.deleting = true; // its phase stays Running: the kubelet that would end it is unreachable
                    jobFailed(job, d, siblingsGrace);
                }
            });
        }
        loop.after(away, () -> {
            d.nodeUnreachable = false;
            if (d.deleting) {
                d.gone = true; // its kubelet is back and finishes the deletion
            }
            if (pools.get(key(pool.cluster, pool.name)) == pool
                    && !pool.stopping
                    && pool.nodeGen == gen
                    && pool.ready < pool.registered) {
                pool.ready++;
                schedulePods();
            }
        });
    }

    /**
     * The Job failed for the disrupted pod (backoffLimit 0): the Job controller sets Failed and deletes the other
     * pods, which end Failed on SIGTERM and are removed.
     */
    private void jobFailed(KJob job, PodDisruption d, Duration siblingsGrace) {
        job.podPhase = "Failed";
        usage.stopped(key(job.cluster, job.name), loop.now());
        // Falcon's Jobs carry a podFailurePolicy FailJob rule on DisruptionTarget (JobRenderer)
        job.conditions = List.of(new JobView.Condition("Failed", "True", "PodFailurePolicy", policyMatch(job)));
        d.siblingsDeleting = true;
        loop.after(siblingsGrace, () -> {
            d.siblingsPhase = "Failed";
            d.siblingsTerminated = Optional.of(new PodView.Terminated(143, "Error"));
        });
        loop.after(siblingsGrace.plus(SEEN_BEFORE_REMOVAL), () -> d.siblingsGone = true);
        scaleDownLater(job.cluster, job.pool);
        ttl(job);
    }

    /**
     * A device under the running Job fails (an uncorrectable memory error, say) often enough that fault-streams
     * isolates it: its ISOLATED verdict, naming the Job's node and device, reaches the scheduler once decided. The
     * pods run on (the device plugin stops offering the device to new pods; the running container keeps it).
     */
    private void isolate(KJob job, int pod, int device, Duration decided) {
        cause(job.falconJobId, Cause.DEVICE_ISOLATED);
        Instant received = loop.now();
        FaultVerdict verdict = new FaultVerdict(
                io.falcon.events.Meta.of("fault-streams", received.plus(decided)),
                job.cluster.clusterId(),
                nodeName(job, pod),
                "accel" + device,
                "TPU_HBM_UNCORRECTABLE",
                Optional.of(job.falconJobId),
                received.toEpochMilli(),
                FaultVerdict.Outcome.ISOLATED,
                new FaultVerdict.Evidence(
                        1,
                        List.of(),
                        0,
                        List.of(received.toEpochMilli()),
                        "the device reached the fault frequency: isolated"));
        loop.after(decided, () -> onDeviceIsolated.accept(verdict));
    }

    /** Falcon jobs whose pods could pull their image only after a transient error (they were going to run). */
    java.util.Set<String> pulledLate() {
        return pulledLate;
    }

    /**
     * The pods of a Job start on its pool while pods of another job are still there (terminating after their Job's
     * deletion, or running): on a multi-host slice some of the new pods would start while the others wait for the
     * old pods' chips, and a TPU workload whose hosts do not all start together fails.
     */
    private void sharedPool(KJob job) {
        for (Terminating t : terminating) {
            if (t.cluster.equals(job.cluster) && t.pool.equals(job.pool) && !t.falconJobId.equals(job.falconJobId)) {
                violations.add("pods of " + job.falconJobId + " started on node pool " + job.pool + " at " + loop.now()
                        + " while pods of " + t.falconJobId + "'s deleted Kubernetes Job were still terminating there"
                        + " (until " + t.until + ")");
            }
        }
        for (KJob other : jobs.values()) {
            if (other != job
                    && other.cluster.equals(job.cluster)
                    && other.pool.equals(job.pool)
                    && "Running".equals(other.podPhase)) {
                violations.add("pods of " + job.falconJobId + " started on node pool " + job.pool + " at " + loop.now()
                        + " while pods of " + other.falconJobId + " were running there");
            }
        }
    }

    private void finish(KJob job) {
        if (jobs.get(key(job.cluster, job.name)) != job || job.finished()) {
            return;
        }
        if (job.podDisruption.filter(d -> d.nodeUnreachable).isPresent()) {
            return; // the pod on the unreachable node cannot complete: the taint manager ends it
        }
        if (job.plan.outcome() == Scenario.Outcome.FAIL) {
            programFailed.putIfAbsent(job.falconJobId, loop.now());
            programFailedJob.putIfAbsent(job.falconJobId, job.name);
            job.podPhase = "Failed";
            job.terminated = Optional.of(
                    new PodView.Terminated(rnd.nextBoolean() ? 1 : 137, rnd.nextBoolean() ? "Error" : "OOMKilled"));
            job.conditions = List.of(new JobView.Condition("Failed", "True", "BackoffLimitExceeded", ""));
        } else {
            job.podPhase = "Succeeded";
            succeeded.putIfAbsent(job.falconJobId, loop.now());
            job.terminated = Optional.of(new PodView.Terminated(0, "Completed"));
            job.conditions = List.of(new JobView.Condition("Complete", "True", "", ""));
        }
        usage.stopped(key(job.cluster, job.name), loop.now());
        scaleDownLater(job.cluster, job.pool);
        ttl(job);
    }

    /** The pool's nodes are going: pods on them die, and their Jobs fail (backoffLimit 0). */
    private void failPodsOn(Pool pool) {
        for (KJob job : jobs.values()) {
            if (same(job.cluster, pool.cluster)
                    && job.pool.equals(pool.name)
                    && !job.finished()
                    && "Running".equals(job.podPhase)) {
                job.podPhase = "Failed";
                usage.stopped(key(job.cluster, job.name), loop.now());
                cause(job.falconJobId, Cause.NODES_LOST);
                // as the pod GC marks a pod whose node is gone (Kubernetes 1.31): the workload killed with its node
                job.disruption = Optional.of("DeletionByPodGC");
                job.terminated = Optional.of(new PodView.Terminated(143, "Error"));
                job.conditions = List.of(new JobView.Condition("Failed", "True", "PodFailurePolicy", policyMatch(job)));
                ttl(job);
            }
        }
    }

    /** The Failed condition's message when a DisruptionTarget pod matched the Job's FailJob rule (its first). */
    private static String policyMatch(KJob job) {
        return "Pod default/" + job.name + "-0 has condition DisruptionTarget matching FailJob rule at index 0";
    }

    /** ttlSecondsAfterFinished (a day): Kubernetes removes a finished Job Falcon did not delete. */
    private void ttl(KJob job) {
        loop.after(Duration.ofHours(24), () -> {
            if (jobs.get(key(job.cluster, job.name)) == job) {
                bury(job);
                jobs.remove(key(job.cluster, job.name));
            }
        });
    }

    // ---- faults ----

    private boolean chance(double p) {
        return chance(p, rnd);
    }

    private static boolean chance(double p, Random r) {
        return p > 0 && r.nextDouble() < p;
    }

    private void maybeFail(String call) {
        maybeFail(call, "");
    }

    /** As {@link #maybeFail(String)}, a failure noted as a cause of the job the call was made for. */
    private void maybeFail(String call, String falconJobId) {
        Integer scripted = failNext.get(call);
        if (scripted != null && scripted > 0) {
            failNext.put(call, scripted - 1);
            throw new ApiException(
                    ApiException.Kind.TRANSIENT,
                    "503 ServiceUnavailable: " + call + ": the server is currently unable to handle the request");
        }
        if (chance(faults.apiError() / 2)) {
            cause(falconJobId, Cause.API_ERROR);
            throw new ApiException(ApiException.Kind.TRANSIENT, "UNAVAILABLE: " + call + ": connection reset");
        }
    }

    /** The change was made but the answer is lost (DEADLINE_EXCEEDED after the server acted). */
    private void maybeFailAfter(String call) {
        maybeFailAfter(call, "");
    }

    private void maybeFailAfter(String call, String falconJobId) {
        if (chance(faults.apiError() / 2)) {
            cause(falconJobId, Cause.API_ERROR);
            throw new ApiException(ApiException.Kind.TRANSIENT, "DEADLINE_EXCEEDED: " + call + ": no answer in time");
        }
    }

    /** TPU chips on each VM of the slice; 4 for what is no slice. */
    private static int chipsPerVm(String tpuType, String topology) {
        try {
            return TpuSlice.resolve(tpuType, topology).chipsPerVm();
        } catch (IllegalArgumentException e) {
            return 4;
        }
    }

    /** VMs of the slice (= nodes of its pool = pods of its Job), as GKE provisions it; 1 for what is no slice. */
    private static int vms(String tpuType, String topology) {
        try {
            return TpuSlice.resolve(tpuType, topology).vms();
        } catch (IllegalArgumentException e) {
            return 1;
        }
    }

    /** One GKE cluster: the other columns of a clusters row (its bucket, say) say nothing of where things are. */
    private static boolean same(ClusterTarget a, ClusterTarget b) {
        return a.resourceName().equals(b.resourceName());
    }

    static String key(ClusterTarget cluster, String name) {
        return cluster.resourceName() + "/" + name;
    }
}
