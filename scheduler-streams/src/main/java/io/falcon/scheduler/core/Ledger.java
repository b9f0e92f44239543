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

    /** Placement: a cluster was chosen (CLUSTER_CHOSEN or REROUTED) or none is eligible, with the candidates weighed. */
    static Decision placement(
            ScheduledJob job,
            Decision.Kind kind,
            Optional<String> cluster,
            ClusterChoice.Result choice,
            String summary,
            Instant now) {
        return about(job, kind, summary, now)
                .at(cluster, Optional.empty(), job.request().supplyMode())
                .weighing(choice.candidates(), choice.weighed());
    }

    /** A slot given with its pool (reused, taken over or created with its supply mode), or a capacity shortfall. */
    static Decision pool(
            ScheduledJob job, Decision.Kind kind, String pool, SupplyMode supply, String summary, Instant now) {
        return about(job, kind, summary, now)
                .at(job.clusterId(), Optional.of(pool), Optional.of(supply))
                .alone();
    }

    /** The pool the job held (or last held) is deleted. */
    static Decision poolDeleted(String jobId, NodePool pool, String why, Instant now) {
        return new Draft(
                        jobId,
                        pool.target().tpuType(),
                        Decision.Kind.POOL_DELETED,
                        "node pool " + pool.name() + " on cluster " + pool.clusterId() + " is deleted: " + why,
                        now,
                        Optional.of(pool.topology()))
                .at(Optional.of(pool.clusterId()), Optional.of(pool.name()), Optional.of(pool.supplyMode()))
                .alone();
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
        return about(job, kind, summary, now)
                .at(job.clusterId(), job.nodePoolName(), job.supplyMode())
                .alone();
    }

    /** The fleet ended the job's attempt and it runs again: RETRIED, with what ended it and what comes next. */
    static Decision retried(ScheduledJob job, String summary, Instant now) {
        return about(job, Decision.Kind.RETRIED, summary, now)
                .at(job.clusterId(), job.nodePoolName(), job.supplyMode())
                .alone();
    }

    /** A fault verdict about the job's device, linked by its reference. */
    static Decision faultNoted(ScheduledJob job, String summary, String verdict, Instant now) {
        return about(job, Decision.Kind.FAULT_NOTED, summary, now)
                .at(job.clusterId(), job.nodePoolName(), job.supplyMode())
                .linking(verdict);
    }

    private static Draft about(ScheduledJob job, Decision.Kind kind, String summary, Instant now) {
        return new Draft(
                job.id(),
                job.request().tpuType().wireName(),
                kind,
                summary,
                now,
                Optional.of(job.request().topology().text()));
    }

    /** What every record has; {@link Located} adds where, then the record is finished one way or another. */
    private record Draft(
            String jobId, String tpuType, Decision.Kind kind, String summary, Instant at, Optional<String> topology) {
        Located at(Optional<String> cluster, Optional<String> pool, Optional<SupplyMode> supply) {
            return new Located(this, cluster, pool, supply);
        }
    }

    private record Located(Draft draft, Optional<String> cluster, Optional<String> pool, Optional<SupplyMode> supply) {
        Decision alone() {
            return build(List.of(), Optional.empty(), 0);
        }

        Decision weighing(List<Decision.Candidate> candidates, int weighed) {
            return build(candidates, Optional.empty(), weighed);
        }

        Decision linking(String verdict) {
            return build(List.of(), Optional.of(verdict), 0);
        }

        private Decision build(List<Decision.Candidate> candidates, Optional<String> verdict, int weighed) {
            return new Decision(
                    SchedulerState.meta(draft.at()),
                    draft.jobId(),
                    draft.tpuType(),
                    draft.kind(),
                    draft.summary(),
                    cluster,
                    draft.topology(),
                    pool,
                    supply,
                    candidates,
                    verdict,
                    weighed);
        }
    }
}
