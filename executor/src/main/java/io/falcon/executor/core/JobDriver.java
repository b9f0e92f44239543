package io.falcon.executor.core;

import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.executor.EventSink;
import io.falcon.executor.Events;
import io.falcon.executor.Mdc;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out EnsureJob and EnsureJobDeleted over {@link EdgeApi}, one attempt per command and nothing kept in
 * memory: a retry is the scheduler's re-sent command, never a timer here that a restart would lose (and that could
 * create a Job after the task was aborted). "Already exists" on create and "not found" on delete are success, for
 * a Job this installation made for the job ({@link Ownership}): one of another owner under the name is never adopted
 * nor deleted.
 */
public final class JobDriver {
    private static final Logger log = LoggerFactory.getLogger(JobDriver.class);

    private final EdgeApi edges;
    private final EventSink sink;
    private final Events events;
    private final Ownership ownership;

    public JobDriver(EdgeApi edges, EventSink sink, Events events, Ownership ownership) {
        this.edges = edges;
        this.sink = sink;
        this.events = events;
        this.ownership = ownership;
    }

    /**
     * Creates the Job: JobSubmitted with its uid (also when it existed already); JobSubmitFailed otherwise, marked
     * retryable for an outage (the scheduler asks again) and final for a refusal.
     */
    public void ensure(EnsureJob command) {
        try (var ignored = Mdc.of(
                "job",
                command.jobId(),
                "cluster",
                command.cluster().clusterId(),
                "k8sJob",
                command.k8sJobName(),
                "nodePool",
                command.nodePoolName())) {
            if (command.jobUid().isPresent()) {
                seenBefore(command);
                return;
            }
            try {
                String uid = edges.createJob(command.cluster(), command);
                log.info("job created uid={}", uid);
                sink.emit(events.jobSubmitted(command.jobId(), command.cluster(), command.k8sJobName(), uid));
            } catch (ApiException e) {
                if (e.is(ApiException.Kind.ALREADY_EXISTS)) {
                    existing(command);
                    return;
                }
                boolean retryable = e.is(ApiException.Kind.TRANSIENT) || e.is(ApiException.Kind.FAILED_PRECONDITION);
                String message = e.is(ApiException.Kind.INVALID) ? "invalid job: " + e.getMessage() : e.getMessage();
                log.warn(
                        "job submit failed ({}{}): {}",
                        e.kind(),
                        retryable ? ", the scheduler will ask again" : "",
                        message);
                sink.emit(events.jobSubmitFailed(
                        command.jobId(),
                        command.cluster(),
                        command.k8sJobName(),
                        message,
                        retryable,
                        command.meta().occurredAt()));
            }
        }
    }

    /**
     * The scheduler has seen this Job created (its pods wait for nodes, and it asks again): the Job is looked at, never
     * created again. Gone: someone other than Falcon deleted it (an operator's kubectl delete while this process did
     * not watch), and it is reported as a Job deleted before it finished, which ends the job, instead of a second Job
     * that would run the task again behind the operator's back. No answer: nothing is reported, the scheduler asks
     * again.
     */
    private void seenBefore(EnsureJob command) {
        Optional<String> uid;
        try {
            uid = edges.findJob(command.cluster(), command.k8sJobName())
                    .filter(found -> ownership.ownsJob(found, command.jobId()))
                    .map(EdgeApi.FoundJob::uid);
        } catch (ApiException e) {
            log.warn("job look-up failed ({}), the scheduler will ask again: {}", e.kind(), e.getMessage());
            return;
        }
        if (uid.isPresent()) {
            sink.emit(events.jobSubmitted(command.jobId(), command.cluster(), command.k8sJobName(), uid.get()));
            nodeCount(command);
            return;
        }
        String seen = command.jobUid().orElseThrow();
        log.warn("job {} (uid {}) is gone: deleted outside Falcon; not creating it again", command.k8sJobName(), seen);
        sink.emit(events.jobFailed(
                command.jobId(),
                command.cluster().clusterId(),
                command.cluster().tpuType(),
                command.k8sJobName(),
                seen,
                JobReports.deletedMessage(command.k8sJobName(), false),
                JobReports.GONE));
    }

    private void existing(EnsureJob command) {
        Optional<EdgeApi.FoundJob> found;
        try {
            found = edges.findJob(command.cluster(), command.k8sJobName());
        } catch (ApiException e) {
            found = Optional.empty();
        }
        if (found.isPresent() && !ownership.ownsJob(found.get(), command.jobId())) {
            String message = "a Kubernetes Job named " + command.k8sJobName() + " already exists on cluster "
                    + command.cluster().clusterId() + " and is not this job's ("
                    + Ownership.ownerOf(found.get().labels(), found.get().jobId()) + "): Falcon leaves it alone";
            log.warn("{}", message);
            sink.emit(events.jobSubmitFailed(
                    command.jobId(),
                    command.cluster(),
                    command.k8sJobName(),
                    message,
                    false,
                    command.meta().occurredAt()));
            return;
        }
        Optional<String> uid = found.map(EdgeApi.FoundJob::uid);
        if (uid.isPresent()) {
            log.info("job already exists uid={}", uid.get());
            sink.emit(events.jobSubmitted(command.jobId(), command.cluster(), command.k8sJobName(), uid.get()));
            nodeCount(command);
        } else {
            sink.emit(events.jobSubmitFailed(
                    command.jobId(),
                    command.cluster(),
                    command.k8sJobName(),
                    "the Job exists but cannot be read back",
                    true,
                    command.meta().occurredAt()));
        }
    }

    /**
     * An EnsureJob for a Job that exists is the scheduler's re-drive while the Job's pods wait for the nodes of a
     * pool that gets them only for pending pods (flex-start): it is answered with the pool's node count as well, from
     * GKE's nodes as they are now, so that a wait whose end was never reported (a restart in between) still ends.
     * Only a count with every node Ready is reported: a wait begins only with pods that wait (JobReports sees them
     * Unschedulable), never here, where no pod is looked at (a Job whose pods cannot be created, for a missing
     * service account or a quota on pods, would otherwise wait for nodes for ever).
     */
    private void nodeCount(EnsureJob command) {
        try {
            int expected =
                    TpuSlice.resolve(command.tpuType(), command.topology()).vms();
            EdgeApi.NodeCount count = edges.nodes(command.cluster(), command.nodePoolName());
            if (count.ready() < expected) {
                return;
            }
            sink.emit(events.nodePoolWaitingForNodes(
                    command.jobId(),
                    command.cluster(),
                    command.nodePoolName(),
                    count.registered(),
                    count.ready(),
                    expected));
        } catch (ApiException | IllegalArgumentException e) {
            log.debug("node count of pool {} not reported: {}", command.nodePoolName(), e.getMessage());
        }
    }

    /**
     * Deletes the Job (background propagation): JobDeleted when it is gone or was never there (also when its GKE
     * cluster no longer exists) and none of its pods is left unfinished. A deleted Job's running pods terminate for
     * up to their grace period and hold their nodes' chips meanwhile, and the scheduler hands the pool on when it
     * hears JobDeleted: until they are gone nothing is reported, and the scheduler's re-sent deletion looks again
     * (the informers report JobDeleted as soon as they see the last one go, {@link JobReports#podsGone}). Nothing
     * here waits. Any other answer reports nothing either: the scheduler re-sends the deletion until it hears
     * JobDeleted.
     */
    public void ensureDeleted(EnsureJobDeleted command) {
        try (var ignored = Mdc.of(
                "job", command.jobId(), "cluster", command.cluster().clusterId(), "k8sJob", command.k8sJobName())) {
            try {
                Optional<EdgeApi.FoundJob> found = edges.findJob(command.cluster(), command.k8sJobName());
                if (found.isPresent() && !ownership.ownsJob(found.get())) {
                    // Someone else's Job under this name: this installation's is not there. Left alone, and its
                    // pods are not this job's to wait for.
                    log.warn(
                            "job {} is not this installation's ({}): not deleted; this job's Job is gone",
                            command.k8sJobName(),
                            Ownership.ownerOf(found.get().labels(), found.get().jobId()));
                    sink.emit(events.jobDeleted(command.jobId(), command.cluster(), command.k8sJobName()));
                    return;
                }
                if (found.isPresent() && found.get().completed()) {
                    // Its success may never have been reported (this process was down from the success to now, and
                    // the deletion takes the evidence away): said before it goes; the scheduler decides what it
                    // means for a job that no longer counts on this Job (an ended attempt's success still ends it).
                    sink.emit(events.jobSucceeded(
                            command.jobId(),
                            command.cluster().clusterId(),
                            command.cluster().tpuType(),
                            command.k8sJobName(),
                            found.get().uid()));
                }
                boolean existed = found.isPresent() && edges.deleteJob(command.cluster(), command.k8sJobName());
                log.info(existed ? "job deleted" : "job already gone");
            } catch (ApiException e) {
                if (!e.is(ApiException.Kind.NOT_FOUND)) {
                    log.warn("job delete failed ({}), the scheduler will ask again: {}", e.kind(), e.getMessage());
                    return;
                }
                log.info("job already gone ({})", e.getMessage());
            }
            int left;
            try {
                left = edges.unfinishedPods(command.cluster(), command.k8sJobName());
            } catch (ApiException e) {
                if (!e.is(ApiException.Kind.NOT_FOUND)) {
                    log.warn(
                            "pods of the deleted job not listed ({}), the scheduler will ask again: {}",
                            e.kind(),
                            e.getMessage());
                    return;
                }
                left = 0; // the GKE cluster itself is gone, and its pods with it
            }
            if (left > 0) {
                log.info("{} pod(s) of the deleted job still terminating: JobDeleted once they are gone", left);
                return;
            }
            sink.emit(events.jobDeleted(command.jobId(), command.cluster(), command.k8sJobName()));
        }
    }
}
