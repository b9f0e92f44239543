package io.falcon.executor.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import java.util.Map;
import java.util.Optional;

/**
 * The part of an edge cluster's Kubernetes API the executor's decisions use, in plain Java: fabric8 in production,
 * memory in the deterministic simulation. Every method throws {@link ApiException} when the call does not succeed
 * (NOT_FOUND also when the GKE cluster itself does not exist).
 */
public interface EdgeApi {

    /** Nodes of a pool that have registered with the cluster, and how many of them are Ready. */
    record NodeCount(int registered, int ready) {}

    /** Counts the nodes labelled cloud.google.com/gke-nodepool=pool. */
    NodeCount nodes(ClusterTarget cluster, String pool);

    /**
     * Creates the Kubernetes Job the command describes and returns its uid; ALREADY_EXISTS when a Job of that name
     * exists, INVALID when the spec cannot be rendered.
     */
    String createJob(ClusterTarget cluster, EnsureJob command);

    /**
     * A Kubernetes Job found by name: its uid, and what says whose it is (see {@link Ownership}).
     *
     * @param jobId the Falcon job id its falcon.io/job-id annotation names, if any
     */
    /**
     * A Job found by name, with its owner's labels.
     *
     * @param completed whether its Complete condition is true (a deletion then removes a success nobody may have
     *     reported yet)
     */
    record FoundJob(String name, String uid, Map<String, String> labels, Optional<String> jobId, boolean completed) {
        public FoundJob {
            labels = Map.copyOf(labels);
        }

        /** A Job not (yet) complete. */
        public FoundJob(String name, String uid, Map<String, String> labels, Optional<String> jobId) {
            this(name, uid, labels, jobId, false);
        }
    }

    /** The Job of that name, if it exists. */
    Optional<FoundJob> findJob(ClusterTarget cluster, String name);

    /** Deletes the Job (background propagation: its pods are deleted by Kubernetes); false when it did not exist. */
    boolean deleteJob(ClusterTarget cluster, String name);

    /**
     * The pods of the Job (by Falcon's falcon-k8s-job label) that have not finished: pending, running, or terminating
     * after the Job's deletion (they hold their nodes' TPU chips until they are gone). Succeeded and Failed pods hold
     * nothing and do not count.
     */
    int unfinishedPods(ClusterTarget cluster, String k8sJobName);
}
