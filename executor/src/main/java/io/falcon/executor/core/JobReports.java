package io.falcon.executor.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.Events;
import io.falcon.executor.FalconLabels;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Turns what the Jobs and Pods of a cluster look like into JobRunning / JobSucceeded / JobFailed, once per Job per
 * process and again every {@link #REPORT_AGAIN_AFTER} while the Job stays (the memory of what was reported is only
 * a filter: a restarted executor reports again and the scheduler ignores what it already knows), and into Job
 * inventories for the sweep. The task's identity comes from the Job's
 * annotations, so nothing else needs remembering.
 *
 * <p>While a Job is pending and a pod of it is Unschedulable, it also reports the node count of the pool the Job
 * selects (NodePoolWaitingForNodes) on each change: on a pool that gets its VMs only for pending pods (flex-start),
 * that is the seed's WaitingForNode. Once the pods are no longer Unschedulable it reports the count once more, so
 * that the scheduler learns the wait is over (ready = expected) without waiting for JobRunning.
 */
public final class JobReports {
    /**
     * A Job still running, or finished and not yet deleted, has its state reported again this long after the last
     * report: a report lost on the way (a send that failed for good while the process stayed up) would otherwise
     * leave the job Running until its execution deadline, and a success would end as a Timeout. The scheduler takes
     * a repeated report as a no-op; Falcon deletes a finished Job once it has learnt the end, which ends the repeats.
     */
    public static final Duration REPORT_AGAIN_AFTER = Duration.ofMinutes(5);

    private final Events events;
    private final Duration imagePullGrace;
    /** uid + "/" + running|terminal, for the states already reported, with when they last were. */
    private final Map<String, Instant> reported = new ConcurrentHashMap<>();
    /**
     * Jobs whose delete event was seen, by cluster resource and Job name, until none of their pods is left
     * unfinished (then JobDeleted, {@link #podsGone}); only a shortcut: the scheduler's re-sent deletion finds the same.
     */
    private final Map<String, ExecutorEvent.JobDeleted> deletedWithPods = new ConcurrentHashMap<>();

    /**
     * What was reported of each deleted Job (its end, or that it went before it finished), by cluster resource and Job
     * name, with when, for {@link #RETAIN_GONE}: once the Job is gone nothing can be read of it again, so a report
     * whose send failed for good is sent again from here ({@link #goneAgain}) before the heartbeat moves on. At most
     * {@link #MAX_GONE_RETAINED}, the oldest dropped first.
     */
    private final Map<String, RetainedGone> goneReported =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, RetainedGone> eldest) {
                    return size() > MAX_GONE_RETAINED;
                }
            });

    /** How long a deleted Job's report is kept to be sent again: longer than any send retry or heartbeat gap. */
    public static final Duration RETAIN_GONE = Duration.ofHours(1);

    /** A bound on the deleted Jobs' reports kept (each a few hundred bytes). */
    static final int MAX_GONE_RETAINED = 10_000;

    private record RetainedGone(ExecutorEvent event, Instant at) {}

    /**
     * The fleet's doing last seen on a pod of each Job (by uid), while the Job is there: Kubernetes deletes an evicted
     * or preempted pod once it has terminated, and the Job's own Failed condition says only BackoffLimitExceeded, so
     * a Job read again after its report was lost (or listed by the inventory) would read as its program's failure.
     * Kept in memory: a restarted executor that never saw the pod reads the Job as its program's failure.
     */
    private final Map<String, io.falcon.events.executor.FailureCause> disruptionsSeen = new ConcurrentHashMap<>();

    /** The node count last reported per Job uid while its pods waited for nodes. */
    private final Map<String, NodeReport> nodeReports = new ConcurrentHashMap<>();

    private record NodeReport(int registered, int ready, int expected) {
        boolean isShort() {
            return ready < expected;
        }
    }

    public JobReports(Events events, Duration imagePullGrace) {
        this.events = events;
        this.imagePullGrace = imagePullGrace;
    }

    /**
     * The event to report for the Job now, if any. cluster is the cluster whose API the Job was read from (the
     * Job's own annotations win when present); nodes counts a node pool's nodes (empty when they cannot be counted
     * now), asked only while a pod of the Job is Unschedulable or its wait was reported.
     */
    public Optional<ExecutorEvent> evaluate(
            ClusterTarget cluster,
            JobView job,
            List<PodView> pods,
            Function<String, Optional<EdgeApi.NodeCount>> nodes,
            Instant now) {
        if (job.deleting() || job.uid().isEmpty() || reportedLately(job.uid() + "/terminal", now)) {
            return Optional.empty();
        }
        List<PodView> own = pods.stream().filter(p -> p.belongsTo(job)).toList();
        JobObservation observation = observe(job, own, now);
        String jobId = falconJobId(job);
        String clusterId = job.annotations().getOrDefault(FalconLabels.ANNOTATION_CLUSTER_ID, cluster.clusterId());
        String tpuType = job.annotations().getOrDefault(FalconLabels.ANNOTATION_TPU_TYPE, cluster.tpuType());
        String uid = job.uid();
        if (observation instanceof JobObservation.Running r && due(uid + "/running", now)) {
            return Optional.of(events.jobRunning(
                    jobId, clusterId, tpuType, job.name(), uid, r.active(), r.expected(), r.boundAt()));
        }
        if (observation instanceof JobObservation.Succeeded && due(uid + "/terminal", now)) {
            return Optional.of(events.jobSucceeded(jobId, clusterId, tpuType, job.name(), uid));
        }
        if (observation instanceof JobObservation.Failed f && due(uid + "/terminal", now)) {
            return Optional.of(events.jobFailed(jobId, clusterId, tpuType, job.name(), uid, f.message(), f.cause()));
        }
        if (observation instanceof JobObservation.Pending && !reported.containsKey(uid + "/running")) {
            return nodeReport(job, own, nodes)
                    .map(r -> events.podsWaitingForNodes(
                            jobId,
                            clusterId,
                            tpuType,
                            job.nodePool().orElseThrow(),
                            r.registered(),
                            r.ready(),
                            r.expected()));
        }
        return Optional.empty();
    }

    /**
     * The node count to report for a pending Job: while a pod is Unschedulable on a pool with fewer Ready nodes than
     * the Job's pods, each new count; after such a wait, the count once more when the nodes are there. A pod that is
     * Unschedulable with all nodes Ready (not bound yet, or unschedulable for another reason) is no wait for nodes:
     * nothing is reported, and the dispatch deadline decides.
     */
    private Optional<NodeReport> nodeReport(
            JobView job, List<PodView> own, Function<String, Optional<EdgeApi.NodeCount>> nodes) {
        if (job.nodePool().isEmpty()) {
            return Optional.empty();
        }
        boolean unschedulable = own.stream().anyMatch(p -> p.unschedulable() && !p.deleting());
        NodeReport last = nodeReports.get(job.uid());
        boolean waitReported = last != null && last.isShort();
        if (!unschedulable && !waitReported) {
            return Optional.empty(); // nothing waits, or the end of the wait was reported already
        }
        Optional<EdgeApi.NodeCount> count = nodes.apply(job.nodePool().get());
        if (count.isEmpty()) {
            return Optional.empty();
        }
        NodeReport now =
                new NodeReport(count.get().registered(), count.get().ready(), JobObservation.expectedPods(job));
        if ((!now.isShort() && !waitReported) || now.equals(last)) {
            return Optional.empty();
        }
        nodeReports.put(job.uid(), now);
        return Optional.of(now);
    }

    /** Never reported, or last reported REPORT_AGAIN_AFTER ago or more: report now (and remember when). */
    private boolean due(String key, Instant now) {
        if (reportedLately(key, now)) {
            return false;
        }
        reported.put(key, now);
        return true;
    }

    private boolean reportedLately(String key, Instant now) {
        Instant last = reported.get(key);
        return last != null && now.isBefore(last.plus(REPORT_AGAIN_AFTER));
    }

    /**
     * The Job was deleted (the informer's delete event, with the last state it saw): what to report of it. A Job that
     * had finished has its end reported (again: a report lost on the way, or one not made yet when a short
     * ttlSecondsAfterFinished removed it, must still reach the scheduler, which takes a repeat as a no-op). A Job
     * that had not finished was deleted before its end: JobFailed saying so. Falcon's own deletions (an abort, a
     * deadline, the cleanup after an end) come only after the scheduler stopped counting on the Job, so it ignores
     * that report; anyone else's (an operator's kubectl delete) ends the job at once instead of at its execution
     * deadline while its slice sits idle. A Job deleted before the informer saw it gives no event and nothing here;
     * the scheduler's inventory check is the backstop for deletions no informer saw.
     *
     * @param finalStateUnknown the informer missed the deletion and only learnt, on a relist, that the Job is gone:
     *     its last state may be stale
     */
    public Optional<ExecutorEvent> gone(
            ClusterTarget cluster, JobView job, List<PodView> pods, boolean finalStateUnknown, Instant now) {
        List<PodView> own = pods.stream().filter(p -> p.belongsTo(job)).toList();
        JobObservation observation = observe(job, own, now);
        forget(job.uid());
        String jobId = falconJobId(job);
        if (jobId.isEmpty() || job.uid().isEmpty()) {
            return Optional.empty();
        }
        deletedWithPods.put(cluster.resourceName() + "/" + job.name(), events.jobDeleted(jobId, cluster, job.name()));
        String clusterId = job.annotations().getOrDefault(FalconLabels.ANNOTATION_CLUSTER_ID, cluster.clusterId());
        String tpuType = job.annotations().getOrDefault(FalconLabels.ANNOTATION_TPU_TYPE, cluster.tpuType());
        ExecutorEvent report;
        if (observation instanceof JobObservation.Succeeded) {
            report = events.jobSucceeded(jobId, clusterId, tpuType, job.name(), job.uid());
        } else if (observation instanceof JobObservation.Failed f) {
            report = events.jobFailed(jobId, clusterId, tpuType, job.name(), job.uid(), f.message(), f.cause());
        } else {
            report = events.jobFailed(
                    jobId,
                    clusterId,
                    tpuType,
                    job.name(),
                    job.uid(),
                    deletedMessage(job.name(), finalStateUnknown),
                    GONE);
        }
        goneReported.put(cluster.resourceName() + "/" + job.name(), new RetainedGone(report, now));
        return Optional.of(report);
    }

    /**
     * The reports of Jobs deleted within {@link #RETAIN_GONE} before now, to send again after a send failed for good
     * (with {@link #forgetAll}): a Job that succeeded and was deleted before its success reached the scheduler (by
     * hand, or by a short ttlSecondsAfterFinished) cannot be read again, and the scheduler, which takes a repeat as a
     * no-op, would otherwise learn only from the inventory that it is gone and end the job Failed.
     */
    public List<ExecutorEvent> goneAgain(Instant now) {
        Instant oldest = now.minus(RETAIN_GONE);
        synchronized (goneReported) {
            goneReported.values().removeIf(r -> r.at().isBefore(oldest));
            return goneReported.values().stream().map(RetainedGone::event).toList();
        }
    }

    /**
     * JobDeleted for the deleted Job once no pod of it is left unfinished (pending, running or terminating): the
     * scheduler hands its pool on when it hears it, and chips held by terminating pods are not free. unfinished is
     * how many of the Job's pods the informer's cache holds that have not finished; the event is given once.
     */
    public Optional<ExecutorEvent.JobDeleted> podsGone(ClusterTarget cluster, String jobName, long unfinished) {
        String key = cluster.resourceName() + "/" + jobName;
        if (unfinished > 0 || !deletedWithPods.containsKey(key)) {
            return Optional.empty();
        }
        return Optional.ofNullable(deletedWithPods.remove(key));
    }

    /** Whether a pod counts as unfinished for {@link #podsGone}: not Succeeded or Failed. */
    public static boolean unfinished(PodView pod) {
        return !"Succeeded".equals(pod.phase()) && !"Failed".equals(pod.phase());
    }

    /**
     * A Job that went away before it finished (deleted by hand, by a namespace clean-up, by GKE's repair of the
     * cluster) was ended by the fleet, not by its program.
     */
    static final io.falcon.events.executor.FailureCause GONE =
            io.falcon.events.executor.FailureCause.infrastructure("JobGone");

    /** What the owner is told when the Job disappeared before it finished. */
    static String deletedMessage(String k8sJob, boolean finalStateUnknown) {
        return "the Kubernetes Job " + k8sJob + " was deleted outside Falcon before it finished"
                + (finalStateUnknown ? " (its last state was not seen: the executor's watch missed the deletion)" : "")
                + "; its pods are gone with it";
    }

    /** The Job is gone: forget what was reported of it, and what was seen of its pods. */
    public void forget(String uid) {
        reported.remove(uid + "/running");
        reported.remove(uid + "/terminal");
        nodeReports.remove(uid);
        disruptionsSeen.remove(uid);
    }

    /**
     * What the Job and its pods say ({@link JobObservation#observe}), with the fleet's doing seen on a pod of it
     * earlier: a failure that reads as the program's now, its disrupted pod since deleted, is the fleet's (a
     * disruption goes first, as when the pods are all there).
     */
    private JobObservation observe(JobView job, List<PodView> own, Instant now) {
        JobObservation observation = JobObservation.observe(job, own, now, imagePullGrace);
        if (job.uid().isEmpty()) {
            return observation;
        }
        if (own.stream().anyMatch(p -> p.disruption().isPresent())) {
            disruptionsSeen.put(job.uid(), JobObservation.cause(own, Optional.empty()));
        }
        io.falcon.events.executor.FailureCause seen = disruptionsSeen.get(job.uid());
        if (seen != null
                && observation instanceof JobObservation.Failed f
                && !f.cause().infrastructure()) {
            return new JobObservation.Failed("Pod disrupted: " + seen.signal() + " (" + f.message() + ")", seen);
        }
        return observation;
    }

    /**
     * Forgets what was reported of every Job, so that the next evaluation of each reports its state again: a send
     * failed for good, and the heartbeat must not say more was reported than was.
     */
    public void forgetAll() {
        reported.clear();
        nodeReports.clear();
    }

    /**
     * Every Falcon Job of a cluster, as read from synced caches; and, as if it were still there, every Job already
     * deleted some of whose pods have not finished (they terminate, holding their chips): its deletion is not over,
     * and the scheduler must not take it as confirmed (it hands the pool on then).
     */
    public ExecutorEvent.JobInventory inventory(ClusterTarget cluster, List<JobView> jobs, List<PodView> pods) {
        List<ExecutorEvent.ObservedJob> observed = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (JobView job : jobs) {
            names.add(job.name());
            List<PodView> own = pods.stream().filter(p -> p.belongsTo(job)).toList();
            observed.add(new ExecutorEvent.ObservedJob(
                    job.name(), falconJobId(job), job.uid(), job.createdAt(), job.finished(), end(job, own)));
        }
        for (PodView pod : pods) {
            if (unfinished(pod)
                    && pod.jobName().isPresent()
                    && names.add(pod.jobName().get())) {
                observed.add(new ExecutorEvent.ObservedJob(
                        pod.jobName().get(),
                        "",
                        pod.ownerJobUid().orElse(""),
                        Optional.empty(),
                        false,
                        Optional.empty()));
            }
        }
        return events.jobInventory(cluster, observed);
    }

    /**
     * How a finished Job ended, read as {@link #evaluate} reads it (so a listed end and a report agree): only a Job
     * with a Complete or Failed condition has one, and such a Job's verdict does not depend on the time (the
     * image-pull grace applies only to pods of a Job still going).
     */
    private Optional<ExecutorEvent.ObservedEnd> end(JobView job, List<PodView> own) {
        if (!job.finished()) {
            return Optional.empty();
        }
        JobObservation observation = observe(job, own, Instant.EPOCH);
        if (observation instanceof JobObservation.Succeeded) {
            return Optional.of(new ExecutorEvent.ObservedEnd(true, ""));
        }
        if (observation instanceof JobObservation.Failed f) {
            return Optional.of(new ExecutorEvent.ObservedEnd(false, f.message(), f.cause()));
        }
        return Optional.empty();
    }

    /** The task a Job runs: its falcon.io/job-id annotation (unsanitized), else its falcon-job label. */
    public static String falconJobId(JobView job) {
        return job.annotations()
                .getOrDefault(FalconLabels.ANNOTATION_JOB_ID, job.labels().getOrDefault(FalconLabels.JOB, ""));
    }
}
