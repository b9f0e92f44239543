package io.falcon.scheduler.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Finished jobs, kept out of the scheduler's memory for {@link SchedulerSettings#terminalRetention()} after they
 * ended. The scheduler holds only live jobs; a finished one moves here at the end of the step that ended it, so the
 * heap and the restore time grow with the jobs in flight, not with every job ever run. What it is still asked for:
 * whether a submission is a duplicate, whether a Kubernetes Job found in an inventory belongs to a finished job, and
 * the finished job a failing pool deletion is noted on. In production it is a changelogged window store that drops
 * whole segments past the retention; a lookup may still find an entry somewhat past it, so the core applies the
 * retention itself ({@link #find(String, Instant, Duration)}).
 */
public interface RetiredJobs {
    /** Keeps (or replaces) a finished job; it ended at its {@link ScheduledJob#phaseSince()}. */
    void put(ScheduledJob done);

    /** The finished job, if it is still kept. */
    Optional<ScheduledJob> get(String jobId);

    /** The finished job, if it ended less than the retention before now. */
    default Optional<ScheduledJob> find(String jobId, Instant now, Duration retention) {
        return get(jobId).filter(job -> endedAt(job).plus(retention).isAfter(now));
    }

    static Instant endedAt(ScheduledJob done) {
        return done.phaseSince().orElse(Instant.EPOCH);
    }

    /**
     * In memory, bounded by the retention: entries are dropped in the order they ended once the newest is more than
     * the retention later (unit tests, the deterministic simulation).
     */
    static RetiredJobs inMemory(Duration retention) {
        return new InMemory(retention);
    }

    final class InMemory implements RetiredJobs {
        private final Duration retention;
        private final Map<String, ScheduledJob> byId = new HashMap<>();
        private final Deque<String> byEnd = new ArrayDeque<>();

        private InMemory(Duration retention) {
            this.retention = retention;
        }

        @Override
        public void put(ScheduledJob done) {
            if (byId.put(done.id(), done) == null) {
                byEnd.addLast(done.id());
            }
            Instant horizon = endedAt(done).minus(retention);
            while (!byEnd.isEmpty()) {
                ScheduledJob oldest = byId.get(byEnd.peekFirst());
                if (oldest != null && !endedAt(oldest).isBefore(horizon)) {
                    break;
                }
                byId.remove(byEnd.pollFirst());
            }
        }

        @Override
        public Optional<ScheduledJob> get(String jobId) {
            return Optional.ofNullable(byId.get(jobId));
        }

        public int size() {
            return byId.size();
        }
    }
}
