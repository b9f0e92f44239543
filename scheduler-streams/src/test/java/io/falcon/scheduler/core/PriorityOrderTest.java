package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The pick order with priorities: priority first (with aging), then the seed's rule within one priority. */
class PriorityOrderTest {
    private static final long AGING = Duration.ofMinutes(10).toMillis();
    private static final long MINUTE = 60_000;
    /** Written out here rather than taken from WaitQueue, so that the properties check it independently. */
    private static final Comparator<WaitQueue.Entry> RANK_ORDER = Comparator.comparingLong(WaitQueue.Entry::rank)
            .thenComparing(e -> -e.priority())
            .thenComparingLong(WaitQueue.Entry::seq)
            .thenComparing(WaitQueue.Entry::jobId);

    private static WaitQueue.Entry job(String id, String actor, long submittedMinute, int priority) {
        return WaitQueue.Entry.of(submittedMinute * MINUTE, priority, AGING, id, actor, "n");
    }

    private static List<String> drain(WaitQueue queue) {
        List<String> served = new ArrayList<>();
        for (Optional<WaitQueue.Entry> next = queue.pollNext(); next.isPresent(); next = queue.pollNext()) {
            served.add(next.get().jobId());
        }
        return served;
    }

    @Test
    void aHigherPriorityJobSubmittedLaterIsPickedFirst() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("low1", "alice", 0, 0));
        queue.add(job("low2", "bob", 1, 0));
        queue.add(job("high", "carol", 2, 5));
        assertThat(drain(queue)).containsExactly("high", "low1", "low2");
    }

    @Test
    void withinOnePriorityTheSeedsRuleHoldsFifoPerActorRoundRobinAcross() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("a1", "alice", 0, 3));
        queue.add(job("a2", "alice", 1, 3));
        queue.add(job("b1", "bob", 2, 3));
        queue.add(job("b2", "bob", 3, 3));
        queue.add(job("c1", "carol", 4, 3));
        queue.add(job("z", "zoe", 0, 0));
        assertThat(drain(queue)).containsExactly("a1", "b1", "a2", "b2", "c1", "z");
    }

    @Test
    void theLastServedActorIsNotSkippedInFavourOfALowerPriority() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("a1", "alice", 0, 5));
        queue.add(job("a2", "alice", 1, 5));
        queue.add(job("b1", "bob", 0, 0));
        // alice holds the only priority-5 jobs: round-robin gives way only within a priority
        assertThat(drain(queue)).containsExactly("a1", "a2", "b1");
    }

    @Test
    void anActorsOwnHigherPriorityJobOvertakesItsOlderOnes() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("a1", "alice", 0, 0));
        queue.add(job("a2", "alice", 1, 2));
        assertThat(drain(queue)).containsExactly("a2", "a1");
    }

    @Test
    void agingOneLevelPerIntervalWaited() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("old", "alice", 0, 0));
        // priority 2 submitted 19 minutes later: effective 2 against old's 1 (19 min = 1.9 intervals) -> ahead
        queue.add(job("p2-19", "bob", 19, 2));
        // priority 2 submitted 21 minutes later: old has aged 2.1 levels by then -> behind
        queue.add(job("p2-21", "carol", 21, 2));
        assertThat(drain(queue)).containsExactly("p2-19", "old", "p2-21");
    }

    @Test
    void positionsFollowPriorityOrder() {
        WaitQueue queue = new WaitQueue();
        queue.add(job("low", "alice", 0, 0));
        WaitQueue.Entry urgent = job("urgent", "bob", 5, 9);
        queue.add(urgent);
        assertThat(queue.positionOf(urgent, 10)).hasValue(1);
        assertThat(queue.pickOrder(10)).extracting(WaitQueue.Entry::jobId).containsExactly("urgent", "low");
    }

    /**
     * No starvation: under an endless stream of jobs of a higher priority P, one arriving every minute (a new one
     * before each pick), a priority-0 job submitted at minute 0 waits only for the arrivals that rank ahead of it:
     * those submitted within P aging intervals of it (at minutes 0 to 10P inclusive, a tie going to the higher
     * priority), so it is pick number 10P + 2 and never later.
     */
    @Property(tries = 100)
    void aLowPriorityJobIsNotStarvedByAStreamOfHigherOnes(
            @ForAll @IntRange(min = 1, max = 20) int highPriority, @ForAll @IntRange(min = 1, max = 4) int actors) {
        long minutesPerInterval = AGING / MINUTE;
        long bound = highPriority * minutesPerInterval + 2;
        WaitQueue queue = new WaitQueue();
        queue.add(job("low", "alice", 0, 0));
        int picks = 0;
        String picked = "";
        while (!picked.equals("low") && picks <= bound) {
            queue.add(job("h" + picks, "actor" + (picks % actors), picks, highPriority));
            picked = queue.pollNext().orElseThrow().jobId();
            picks++;
        }
        assertThat(picked).isEqualTo("low");
        assertThat((long) picks).isEqualTo(bound);
    }

    /**
     * Every pick is the first in rank order, unless that one's actor was served last and another actor has a job of
     * the same priority: then that actor's first. So a job never waits behind a job ranked after it, except for the
     * one round-robin turn of its own priority.
     */
    @Property(tries = 300)
    void eachPickTakesTheFirstRankedOrItsRoundRobinAlternative(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 4) Integer> actors,
            @ForAll @Size(max = 60) List<@IntRange(min = -3, max = 3) Integer> priorities,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 120) Integer> minutes) {
        WaitQueue queue = new WaitQueue();
        List<WaitQueue.Entry> waiting = new ArrayList<>();
        int n = Math.min(actors.size(), Math.min(priorities.size(), minutes.size()));
        for (int i = 0; i < n; i++) {
            WaitQueue.Entry entry = job("j" + i, "actor" + actors.get(i), minutes.get(i), priorities.get(i));
            queue.add(entry);
            waiting.add(entry);
        }
        Optional<String> last = Optional.empty();
        while (!waiting.isEmpty()) {
            WaitQueue.Entry pick = queue.pollNext().orElseThrow();
            WaitQueue.Entry best = waiting.stream().min(RANK_ORDER).orElseThrow();
            Set<WaitQueue.Entry> allowed = new HashSet<>();
            allowed.add(best);
            String lastActor = last.orElse("");
            if (best.actor().equals(lastActor)) {
                waiting.stream()
                        .filter(e -> !e.actor().equals(lastActor))
                        .min(RANK_ORDER)
                        .filter(other -> other.priority() == best.priority())
                        .ifPresent(other -> {
                            allowed.clear();
                            allowed.add(other);
                        });
            }
            assertThat(allowed).contains(pick);
            waiting.remove(pick);
            last = Optional.of(pick.actor());
        }
    }

    /** pickOrder predicts exactly what successive polls do, with priorities too. */
    @Property(tries = 300)
    void pickOrderPredictsThePollsWithPriorities(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 5) Integer> actors,
            @ForAll @Size(max = 60) List<@IntRange(min = -2, max = 2) Integer> priorities,
            @ForAll @IntRange(min = 0, max = 10) int pollsFirst,
            @ForAll @IntRange(min = 0, max = 70) int limit) {
        WaitQueue queue = new WaitQueue();
        int n = Math.min(actors.size(), priorities.size());
        for (int i = 0; i < n; i++) {
            queue.add(job("j" + i, "actor" + actors.get(i), i * 3L, priorities.get(i)));
        }
        for (int i = 0; i < pollsFirst; i++) {
            queue.pollNext();
        }
        List<WaitQueue.Entry> predicted = queue.pickOrder(limit);
        List<WaitQueue.Entry> polled = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            queue.pollNext().ifPresent(polled::add);
        }
        assertThat(predicted).isEqualTo(polled);
    }
}
