package io.falcon.events.decision;

import io.falcon.events.Meta;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One scheduling decision about one job, with the inputs it was made from: the decision ledger (the audit log),
 * topic {@code falcon.decisions}, keyed by job id. {@code falcon explain} reads it back to tell a person where a job
 * is, why, and what would unblock it.
 *
 * @param summary one sentence a person can read ("placed on cluster c1: it holds an idle 2x4 pool")
 * @param candidates the clusters weighed (placement and re-routing decisions), each with its status, queue and why
 *     it was not taken; empty for other decisions. The job's live queue position and who is ahead are in its
 *     status (the jobs row's Message), which {@code falcon explain} reads beside the ledger.
 * @param candidatesWeighed how many clusters were weighed: with many clusters of a type, only {@link
 *     #MAX_CANDIDATES} are recorded (the chosen one, those ruled out, then the best of the others)
 * @param verdict for FAULT_NOTED: the fault verdict it links ({@code cluster/node/device/code} and its outcome)
 */
public record Decision(
        Meta meta,
        String jobId,
        String tpuType,
        Kind kind,
        String summary,
        Optional<String> clusterId,
        Optional<String> topology,
        Optional<String> nodePoolName,
        Optional<SupplyMode> supplyMode,
        List<Candidate> candidates,
        Optional<String> verdict,
        int candidatesWeighed) {

    /** At most this many candidates are recorded: the chosen one, those ruled out, then the best of the others. */
    public static final int MAX_CANDIDATES = 10;

    /** A decision whose candidates are all the clusters weighed. */
    public Decision(
            Meta meta,
            String jobId,
            String tpuType,
            Kind kind,
            String summary,
            Optional<String> clusterId,
            Optional<String> topology,
            Optional<String> nodePoolName,
            Optional<SupplyMode> supplyMode,
            List<Candidate> candidates,
            Optional<String> verdict) {
        this(
                meta,
                jobId,
                tpuType,
                kind,
                summary,
                clusterId,
                topology,
                nodePoolName,
                supplyMode,
                candidates,
                verdict,
                candidates == null ? 0 : candidates.size());
    }

    public Decision {
        Objects.requireNonNull(meta, "meta");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(summary, "summary");
        tpuType = tpuType == null ? "" : tpuType;
        clusterId = clusterId == null ? Optional.empty() : clusterId;
        topology = topology == null ? Optional.empty() : topology;
        nodePoolName = nodePoolName == null ? Optional.empty() : nodePoolName;
        supplyMode = supplyMode == null ? Optional.empty() : supplyMode;
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
        verdict = verdict == null ? Optional.empty() : verdict;
        candidatesWeighed = Math.max(candidatesWeighed, candidates.size());
    }

    /** What was decided. */
    public enum Kind {
        /** A cluster was chosen for the job and it entered that (cluster, topology) queue. */
        CLUSTER_CHOSEN,
        /** No cluster can take the job now: it waits for one (candidates say why each was rejected). */
        NO_CLUSTER_ELIGIBLE,
        /** The job was placed on another cluster than before (its cluster left or changed, or it starts sooner). */
        REROUTED,
        /** The queue gave the job its slot, and it runs on an idle node pool another job left (seed section 5). */
        POOL_REUSED,
        /** The queue gave the job its slot, and a node pool is created for it, with the supply mode and why. */
        POOL_CREATED,
        /** The queue gave the job its slot, and it takes over a pool still being created for an aborted job. */
        POOL_TAKEN_OVER,
        /**
         * The reservation lacks the capacity the job's pool needs (remaining and needed slices in the summary): it
         * waits ClusterBusy with its queue's slot (seed section 5).
         */
        CAPACITY_SHORT,
        /** The job's node pool is deleted (nothing waits for it, or it failed). */
        POOL_DELETED,
        /** The job ended Aborted (its row asked for it, or its cluster went away). */
        ABORTED,
        /** The job ended Failed because a deadline passed (NodePoolTimeout, Timeout). */
        TIMED_OUT,
        /** fault-streams decided about a fault of the job's devices (software fault or device isolated). */
        FAULT_NOTED,
        /** The job ended otherwise (Succeeded, or Failed with its reason). */
        ENDED,
        /**
         * The fleet ended the job's attempt and it runs again under its id (Pending/Retrying): what ended it, which
         * attempt comes next, and when; or, with the job ending instead, why it is not retried.
         */
        RETRIED
    }

    /**
     * One cluster weighed for the job.
     *
     * @param status the row's status (active, maintenance, offline)
     * @param queueDepth jobs waiting in the job's (cluster, topology) queue then
     * @param idlePool whether it held an idle node pool of the job's topology
     * @param reservation the cluster's default reservation, if any
     * @param expectedStart when the job would be expected to start there, if there is history to tell
     * @param outcome taken, or why not (machine-readable; {@code falcon explain} turns it into advice)
     * @param why the same for a person ("in maintenance", "queue of 4 against 1 on c2")
     */
    public record Candidate(
            String clusterId,
            String status,
            int queueDepth,
            boolean idlePool,
            Optional<String> reservation,
            Optional<Instant> expectedStart,
            Outcome outcome,
            String why) {
        public Candidate {
            Objects.requireNonNull(clusterId, "clusterId");
            Objects.requireNonNull(outcome, "outcome");
            status = status == null ? "" : status;
            reservation = reservation == null ? Optional.empty() : reservation;
            expectedStart = expectedStart == null ? Optional.empty() : expectedStart;
            why = why == null ? "" : why;
        }
    }

    /** What became of a candidate cluster. */
    public enum Outcome {
        /** The job went there. */
        CHOSEN,
        /** The cluster is not active (maintenance, offline or an unknown status): it takes no new jobs. */
        NOT_ACTIVE,
        /** The job asks for supply_mode=reservation and the cluster has no default_reservation. */
        NO_DEFAULT_RESERVATION,
        /** Eligible, but another cluster was preferred (idle pool, sooner start, shorter queue, id). */
        LESS_PREFERRED,
        /**
         * Active, but it kept refusing work (node pools GKE refused or failed, Kubernetes Jobs refused for good, the
         * GKE cluster gone) and is avoided for a cool-down; the candidate's sentence says how often, what and until
         * when.
         */
        AVOIDED
    }
}
