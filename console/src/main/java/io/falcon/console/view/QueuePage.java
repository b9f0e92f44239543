package io.falcon.console.view;

import java.util.List;
import java.util.Optional;

/**
 * One (cluster, topology) queue: the jobs acquiring a node pool, the first waiting jobs in the scheduler's pick order
 * (by the positions their statuses tell), the other waiting jobs (a keyset page in submission order), each with the
 * position and start estimate the scheduler gave it, the running jobs (a page), and the cluster's timeline.
 */
public record QueuePage(
        List<ClusterInfo> clusters,
        Optional<ClusterInfo> cluster,
        List<String> topologies,
        Optional<String> topology,
        List<Entry> acquiring,
        List<Entry> pickOrder,
        List<Entry> waiting,
        Optional<Cursor> nextWaiting,
        List<Entry> running,
        Optional<Cursor> nextRunning,
        Optional<QueueChart> chart,
        Optional<Timeline> timeline) {

    public QueuePage {
        clusters = List.copyOf(clusters);
        topologies = List.copyOf(topologies);
        acquiring = List.copyOf(acquiring);
        pickOrder = List.copyOf(pickOrder);
        waiting = List.copyOf(waiting);
        running = List.copyOf(running);
    }

    /** A job in a queue, with its scheduler-given position and estimate when it waits. */
    public record Entry(ListedJob job, Optional<Integer> position, Optional<String> estimate) {}
}
