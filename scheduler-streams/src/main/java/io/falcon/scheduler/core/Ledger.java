package io.falcon.scheduler.core;

import io.falcon.events.decision.Decision;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The decision ledger's records (issue 18), one factory per kind of decision, so every place that decides writes its
 * record the same way. Each carries the inputs it was made from; see {@link Decision}.
 */
final class Ledger {
    private Ledger() {}

    /** Placement: a cluster was chosen (CLUSTER_CHOSEN or REROUTED) or none is eligible, with every candidate. */
    static Decision placement(
            ScheduledJob job,
            Decision.Kind kind,
            Optional<String> cluster,
            ClusterChoice.Result choice,
            String summary,
            Instant now) {
        return new Decision(
                SchedulerState.meta(now),
                job.id(),
                job.request().tpuType().wireName(),
                kind,
                summary,
                cluster,
                Optional.of(job.request().topology().text()),
                Optional.empty(),
                job.request().supplyMode(),
                choice.candidates(),
                Optional.empty(),
                choice.weighed());
    }

    /** A slot given with its pool: reused, taken over or created (with the supply mode). */
    static Decision pool(
            ScheduledJob job, Decision.Kind kind, String pool, SupplyMode supply, String summary, Instant now) {
        return new Decision(
                SchedulerState.meta(now),
                job.id(),
                job.request().tpuType().wireName(),
                kind,
                summary,
                job.clusterId(),
                Optional.of(job.request().topology().text()),
                Optional.of(pool),
                Optional.of(supply),
                List.of(),
                Optional.empty());
    }

    /** The pool the job held (or last held) is deleted. */
    static Decision poolDeleted(String jobId, NodePool pool, String why, Instant now) {
        return new Decision(
                SchedulerState.meta(now),
                jobId,
                pool.target().tpuType(),
                Decision.Kind.POOL_DELETED,
                "node pool " + pool.name() + " on cluster " + pool.clusterId() + " is deleted: " + why,
                Optional.of(pool.clusterId()),
                Optional.of(pool.topology()),
                Optional.of(pool.name()),
                Optional.of(pool.supplyMode()),
                List.of(),
                Optional.empty());
    }

    /** The job ended: ABORTED, TIMED_OUT (a deadline) or ENDED, with its status, reason and message. */
    static Decision ended(ScheduledJob job, Instant now) {
        Decision.Kind kind = job.status() == Status.Aborted
                ? Decision.Kind.ABORTED
                : job.reason()
                                .filter(r -> r == Reason.Timeout || r == Reason.NodePoolTimeout)
                                .isPresent()
                        ? Decision.Kind.TIMED_OUT
                        : Decision.Kind.ENDED;
        String summary = "ended " + job.status()
                + job.reason().map(r -> "/" + r).orElse("") + (job.message().isEmpty() ? "" : ": " + job.message());
        return new Decision(
                SchedulerState.meta(now),
                job.id(),
                job.request().tpuType().wireName(),
                kind,
                summary,
                job.clusterId(),
                Optional.of(job.request().topology().text()),
                job.nodePoolName(),
                job.supplyMode(),
                List.of(),
                Optional.empty());
    }
}
