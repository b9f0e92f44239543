package io.falcon.console.view;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The scheduler's pick order of each (cluster, topology) queue as far as it tells it: the jobs whose latest status is
 * Pending/Waiting with an exact position ("#N", not "#N 之后"), by position. The scheduler keeps the first
 * falcon.scheduler.position-updates positions of a queue current, so the smallest positions held are exact; a deeper
 * job's position is the one it was told on arrival. Bounded: at most {@code perQueue} jobs per queue (the smallest
 * positions; a job pushed out is held again when it is told a position again). Not thread-safe: the
 * {@link ConsoleIndex} guards it.
 */
final class PickOrder {
    /** A queue: its cluster and topology. */
    record Queue(String clusterId, String topology) implements Comparable<Queue> {
        @Override
        public int compareTo(Queue o) {
            return Comparator.comparing(Queue::clusterId)
                    .thenComparing(Queue::topology)
                    .compare(this, o);
        }
    }

    /** A waiting job's place as its latest status tells it. */
    record Place(String jobId, Queue queue, int position, long version) {}

    private static final Comparator<Place> BY_POSITION =
            Comparator.comparingInt(Place::position).thenComparing(Place::jobId);

    private final int perQueue;
    private final Map<String, Place> byJob = new HashMap<>();
    private final Map<Queue, TreeSet<Place>> byQueue = new TreeMap<>();

    PickOrder(int perQueue) {
        this.perQueue = perQueue;
    }

    /**
     * What the job's latest status (of the given version) says: a place, or none (it left the queue, or its position
     * is not exact, or its queue is not known yet). An older version than the one held changes nothing.
     */
    void update(String jobId, long version, Optional<Place> place) {
        Place held = byJob.get(jobId);
        if (held != null) {
            if (held.version() > version) {
                return;
            }
            remove(held);
        }
        place.ifPresent(p -> {
            TreeSet<Place> queue = byQueue.computeIfAbsent(p.queue(), q -> new TreeSet<>(BY_POSITION));
            queue.add(p);
            byJob.put(jobId, p);
            while (queue.size() > perQueue) {
                byJob.remove(queue.pollLast().jobId());
            }
        });
    }

    private void remove(Place held) {
        byJob.remove(held.jobId());
        TreeSet<Place> queue = byQueue.get(held.queue());
        if (queue != null) {
            queue.remove(held);
            if (queue.isEmpty()) {
                byQueue.remove(held.queue());
            }
        }
    }

    /** The first {@code limit} jobs of the queue by position. */
    List<Place> first(Queue queue, int limit) {
        TreeSet<Place> places = byQueue.get(queue);
        return places == null ? List.of() : places.stream().limit(limit).toList();
    }

    int size() {
        return byJob.size();
    }
}
