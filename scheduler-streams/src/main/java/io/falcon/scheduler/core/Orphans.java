package io.falcon.scheduler.core;

import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The sweeps over the executor's inventories (seed error table: orphan pools): a pool or Kubernetes Job of this installation (the inventory lists only those: labels, not names) that
 * no live job of this scheduler owns is deleted once it has been seen for the orphan grace, so that a freshly created
 * flex-start pool that GKE shows late is not mistaken for one; a deletion that the inventory of its own location no
 * longer lists is confirmed.
 */
final class Orphans {
    private final SchedulerState state;
    private final PoolLifecycle pools;
    private final JobDeletions deletions;
    /** When each unknown pool of this installation was first reported, for the orphan grace (rebuilt from inventories). */
    private final Map<NodePool.PoolKey, Instant> orphanPools = new HashMap<>();
    /** When each falcon Job of no known task was first reported, for the orphan grace. */
    private final Map<JobDeletion.Key, Instant> orphanJobs = new HashMap<>();

    Orphans(SchedulerState state, PoolLifecycle pools, JobDeletions deletions) {
        this.state = state;
        this.pools = pools;
        this.deletions = deletions;
    }

    /** The cluster is gone: what was seen there no longer counts towards a grace. */
    void forgetCluster(String clusterId) {
        orphanPools.keySet().removeIf(k -> k.clusterId().equals(clusterId));
        orphanJobs.keySet().removeIf(k -> k.clusterId().equals(clusterId));
    }

    /**
     * A pool of this installation that no job of this scheduler holds or is creating is deleted once it has been seen for the
     * orphan grace. A pool being deleted that the inventory of its own location no longer lists is gone.
     */
    void onPoolInventory(ExecutorEvent.NodePoolInventory inventory, Instant now, Decisions out) {
        Optional<ClusterTarget> listed = listedHere(inventory.clusterId(), inventory.clusterResource());
        if (listed.isEmpty()) {
            return;
        }
        ClusterTarget here = listed.get();
        Set<NodePool.PoolKey> seen = new HashSet<>();
        for (ExecutorEvent.ObservedPool observed : inventory.pools()) {
            if (observed.falconJob().isEmpty()) {
                // The executor lists only pools its labels prove this installation's; one without Falcon's job
                // label is not, whatever its name (an executor of an older release listed by name).
                continue;
            }
            NodePool.PoolKey key = new NodePool.PoolKey(inventory.clusterId(), observed.name());
            seen.add(key);
            if (state.pools.containsKey(key)) {
                orphanPools.remove(key);
                continue;
            }
            Instant firstSeen = orphanPools.computeIfAbsent(
                    key,
                    k -> observed.createdAt()
                            .filter(created -> created.isBefore(now))
                            .orElse(now));
            if (!firstSeen.plus(state.settings.orphanGrace()).isAfter(now)) {
                orphanPools.remove(key);
                pools.delete(
                        NodePool.of(
                                here,
                                observed.name(),
                                observed.topology(),
                                SupplyMode.ON_DEMAND,
                                NodePool.State.DELETING,
                                Optional.empty(),
                                Optional.empty()),
                        now,
                        out);
            }
        }
        orphanPools.keySet().removeIf(key -> key.clusterId().equals(inventory.clusterId()) && !seen.contains(key));
        // Absent from a listing of its own location long after its deletion was asked for: gone. Not sooner: a
        // flex-start pool is invisible for a while after its creation, and may be deleted in that while.
        Instant listedAt = inventory.meta().occurredAt();
        List<NodePool.PoolKey> gone = state.pools.values().stream()
                .filter(p -> p.clusterId().equals(inventory.clusterId()) && p.state() == NodePool.State.DELETING)
                .filter(p -> p.target().sameCluster(here))
                .filter(p -> p.since()
                        .filter(since ->
                                since.plus(state.settings.orphanGrace()).isBefore(listedAt))
                        .isPresent())
                .map(NodePool::key)
                .filter(key -> !seen.contains(key))
                .toList();
        for (NodePool.PoolKey key : gone) {
            state.removePool(key);
            out.poolChanged(key);
        }
    }

    /**
     * A falcon Job whose task has ended is deleted (again); one of no task this scheduler knows, or of a task that
     * lives elsewhere, is deleted once seen for the orphan grace. A deletion the inventory of its own location no
     * longer lists is confirmed.
     */
    void onJobInventory(ExecutorEvent.JobInventory inventory, Instant now, Decisions out) {
        Optional<ClusterTarget> listed = listedHere(inventory.clusterId(), inventory.clusterResource());
        if (listed.isEmpty()) {
            return;
        }
        ClusterTarget here = listed.get();
        Set<JobDeletion.Key> seen = new HashSet<>();
        for (ExecutorEvent.ObservedJob observed : inventory.jobs()) {
            JobDeletion.Key key = new JobDeletion.Key(inventory.clusterId(), observed.name());
            seen.add(key);
            if (state.deletions.containsKey(key)) {
                continue;
            }
            ScheduledJob job = state.jobs.get(observed.falconJobId());
            boolean owned = job != null
                    && job.phase() != Phase.DONE
                    && job.clusterId().filter(inventory.clusterId()::equals).isPresent()
                    && job.target().filter(here::sameCluster).isPresent()
                    && job.k8sJobName().filter(observed.name()::equals).isPresent();
            if (owned) {
                orphanJobs.remove(key);
                continue;
            }
            boolean ended = job == null
                    ? state.retired
                            .find(observed.falconJobId(), now, state.settings.terminalRetention())
                            .isPresent()
                    : job.phase() == Phase.DONE;
            Instant firstSeen = orphanJobs.computeIfAbsent(
                    key,
                    k -> observed.createdAt()
                            .filter(created -> created.isBefore(now))
                            .orElse(now));
            if (ended || !firstSeen.plus(state.settings.orphanGrace()).isAfter(now)) {
                orphanJobs.remove(key);
                deletions.request(new JobDeletion(here, observed.name(), observed.falconJobId(), now), now, out);
            }
        }
        orphanJobs.keySet().removeIf(key -> key.clusterId().equals(inventory.clusterId()) && !seen.contains(key));
        List<JobDeletion.Key> gone = state.deletions.values().stream()
                .filter(d -> d.target().sameCluster(here)
                        && d.requestedAt().isBefore(inventory.meta().occurredAt()))
                .map(JobDeletion::key)
                .filter(key -> !seen.contains(key))
                .toList();
        for (JobDeletion.Key key : gone) {
            deletions.confirmed(key, now, out);
        }
    }

    /**
     * The cluster an inventory listed, if this scheduler owns it and its row still names that GKE cluster (an
     * inventory of a location the row has left says nothing about where its pools and Jobs are now).
     */
    private Optional<ClusterTarget> listedHere(String clusterId, String clusterResource) {
        return Optional.ofNullable(state.clusters.get(clusterId))
                .map(SchedulerState::target)
                .filter(t -> t.resourceName().equals(clusterResource));
    }
}
