package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class WaitQueueTest {
    @Test
    void fifoWithinAnActorRoundRobinAcrossActors() {
        WaitQueue queue = new WaitQueue();
        queue.add(new WaitQueue.Entry(1, "a1", "alice", "x"));
        queue.add(new WaitQueue.Entry(2, "a2", "alice", "x"));
        queue.add(new WaitQueue.Entry(3, "b1", "bob", "x"));
        queue.add(new WaitQueue.Entry(4, "b2", "bob", "x"));
        queue.add(new WaitQueue.Entry(5, "c1", "carol", "x"));
        List<String> served = new ArrayList<>();
        for (Optional<WaitQueue.Entry> next = queue.pollNext(); next.isPresent(); next = queue.pollNext()) {
            served.add(next.get().jobId());
        }
        // a1 first; alice was served, so bob's head b1; then the earliest other than bob: a2; then b2; then c1
        assertThat(served).containsExactly("a1", "b1", "a2", "b2", "c1");
        assertThat(queue.size()).isZero();
    }

    @Test
    void anActorAloneIsServedAgain() {
        WaitQueue queue = new WaitQueue();
        queue.add(new WaitQueue.Entry(1, "a1", "alice", "x"));
        queue.add(new WaitQueue.Entry(2, "a2", "alice", "x"));
        assertThat(queue.pollNext()).map(WaitQueue.Entry::jobId).contains("a1");
        assertThat(queue.pollNext()).map(WaitQueue.Entry::jobId).contains("a2");
    }

    /** pickOrder predicts exactly what successive polls do, whatever the history of adds, removes and polls. */
    @Property(tries = 300)
    void pickOrderPredictsThePolls(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 5) Integer> actors,
            @ForAll @Size(max = 20) List<@IntRange(min = 0, max = 59) Integer> removals,
            @ForAll @IntRange(min = 0, max = 10) int pollsFirst,
            @ForAll @IntRange(min = 0, max = 70) int limit) {
        WaitQueue queue = new WaitQueue();
        List<WaitQueue.Entry> added = new ArrayList<>();
        for (int i = 0; i < actors.size(); i++) {
            WaitQueue.Entry entry = new WaitQueue.Entry(i, "j" + i, "actor" + actors.get(i), "n");
            added.add(entry);
            queue.add(entry);
        }
        for (int index : removals) {
            if (index < added.size()) {
                queue.remove(added.get(index));
            }
        }
        for (int i = 0; i < pollsFirst; i++) {
            queue.pollNext();
        }
        int sizeBefore = queue.size();
        List<WaitQueue.Entry> predicted = queue.pickOrder(limit);
        List<WaitQueue.Entry> polled = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            queue.pollNext().ifPresent(polled::add);
        }
        assertThat(predicted).isEqualTo(polled);
        assertThat(polled).hasSize(Math.min(limit, sizeBefore));
    }
}
