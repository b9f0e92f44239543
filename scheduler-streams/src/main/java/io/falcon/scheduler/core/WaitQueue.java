package io.falcon.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The waiting jobs of one (cluster, topology) queue and its single acquiring slot.
 *
 * <p>Pick rule (seed section 4): take each actor's earliest job; if more than one actor has a candidate, skip the
 * actor served last; take the earliest remaining. Each actor's jobs sit in their own ordered set and the actors'
 * heads in another, so a pick, an insert and a removal are all O(log n).
 */
public final class WaitQueue {
    /** A waiting job, ordered by submission time, ties by job id. */
    public record Entry(long seq, String jobId, String actor, String name) {}

    private static final Comparator<Entry> BY_SEQ =
            Comparator.comparingLong(Entry::seq).thenComparing(Entry::jobId);

    private final Map<String, TreeSet<Entry>> byActor = new HashMap<>();
    private final TreeSet<Entry> heads = new TreeSet<>(BY_SEQ);
    private Optional<String> lastServedActor = Optional.empty();
    private Optional<String> slotHolder = Optional.empty();
    private int size;

    public void add(Entry entry) {
        TreeSet<Entry> own = byActor.computeIfAbsent(entry.actor(), a -> new TreeSet<>(BY_SEQ));
        Entry oldHead = own.isEmpty() ? null : own.first();
        if (!own.add(entry)) {
            return;
        }
        size++;
        if (oldHead == null || BY_SEQ.compare(entry, oldHead) < 0) {
            if (oldHead != null) {
                heads.remove(oldHead);
            }
            heads.add(entry);
        }
    }

    public boolean remove(Entry entry) {
        TreeSet<Entry> own = byActor.get(entry.actor());
        if (own == null || !own.contains(entry)) {
            return false;
        }
        boolean wasHead = own.first().equals(entry);
        own.remove(entry);
        size--;
        if (wasHead) {
            heads.remove(entry);
            if (!own.isEmpty()) {
                heads.add(own.first());
            }
        }
        if (own.isEmpty()) {
            byActor.remove(entry.actor());
        }
        return true;
    }

    /** The job the pick rule chooses next, without removing it. */
    public Optional<Entry> peekNext() {
        if (heads.isEmpty()) {
            return Optional.empty();
        }
        Entry first = heads.first();
        if (heads.size() > 1 && lastServedActor.filter(first.actor()::equals).isPresent()) {
            return Optional.of(heads.higher(first));
        }
        return Optional.of(first);
    }

    /** Removes and returns the next job, remembering its actor for the round-robin. */
    public Optional<Entry> pollNext() {
        Optional<Entry> next = peekNext();
        next.ifPresent(entry -> {
            remove(entry);
            lastServedActor = Optional.of(entry.actor());
        });
        return next;
    }

    /**
     * The order in which the waiting jobs would be picked if nothing else arrived, up to limit entries, in
     * O(k log n). Each step picks one of the two earliest candidates, so only the earliest k + 2 actor heads can
     * ever be picked within k steps: the rest of the heads are never copied.
     */
    public List<Entry> pickOrder(int limit) {
        List<Entry> order = new ArrayList<>();
        TreeSet<Entry> candidates = new TreeSet<>(BY_SEQ);
        for (Entry head : heads) {
            if (candidates.size() >= (long) limit + 2) {
                break;
            }
            candidates.add(head);
        }
        Optional<String> last = lastServedActor;
        while (order.size() < limit && !candidates.isEmpty()) {
            Entry first = candidates.first();
            Entry pick =
                    candidates.size() > 1 && last.filter(first.actor()::equals).isPresent()
                            ? candidates.higher(first)
                            : first;
            candidates.remove(pick);
            order.add(pick);
            last = Optional.of(pick.actor());
            Entry next = byActor.get(pick.actor()).higher(pick);
            if (next != null) {
                candidates.add(next);
            }
        }
        return order;
    }

    /**
     * Where the entry stands among the waiting jobs in pick order (1 = next), if within the first limit positions;
     * O(k log n) for position k, so callers bound it.
     */
    public java.util.OptionalInt positionOf(Entry target, int limit) {
        List<Entry> order = pickOrder(limit);
        int index = order.indexOf(target);
        return index < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(index + 1);
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return heads.isEmpty();
    }

    public Optional<String> slotHolder() {
        return slotHolder;
    }

    public void takeSlot(String jobId) {
        slotHolder = Optional.of(jobId);
    }

    public void releaseSlot(String jobId) {
        if (slotHolder.filter(jobId::equals).isPresent()) {
            slotHolder = Optional.empty();
        }
    }

    public Optional<String> lastServedActor() {
        return lastServedActor;
    }

    public void restoreLastServedActor(Optional<String> actor) {
        lastServedActor = actor;
    }
}
