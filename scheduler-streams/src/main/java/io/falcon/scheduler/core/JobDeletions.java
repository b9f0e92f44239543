package io.falcon.scheduler.core;

import io.falcon.events.executor.ExecutorCommand;
import java.time.Instant;

/**
 * The Kubernetes Jobs the scheduler wants gone (recovery rule 3): each is remembered and EnsureJobDeleted re-sent
 * every cleanup interval, to where the Job was created, until the executor confirms it or an inventory of that
 * location no longer lists it.
 */
final class JobDeletions {
    private final SchedulerState state;
    private final Timers timers;

    JobDeletions(SchedulerState state, Timers timers) {
        this.state = state;
        this.timers = timers;
    }

    /** Remembers the deletion (a second request for the same Job keeps the first) and asks for it. */
    void request(JobDeletion deletion, Instant now, Decisions out) {
        JobDeletion existing = state.deletions.putIfAbsent(deletion.key(), deletion);
        if (existing == null) {
            out.deletionChanged(deletion.key());
        }
        ask(existing == null ? deletion : existing, now, out);
    }

    /** Sends EnsureJobDeleted and arms the next re-send. */
    void ask(JobDeletion deletion, Instant now, Decisions out) {
        out.send(new ExecutorCommand.EnsureJobDeleted(
                SchedulerState.meta(now), deletion.jobId(), deletion.target(), deletion.k8sJobName()));
        timers.arm(deletion.key(), now.plus(state.settings.cleanupRetry()));
    }

    /** Told of every confirmed deletion (the pool the Job's finished job kept goes on then). */
    interface Confirmed {
        void gone(JobDeletion deletion, Instant now, Decisions out);
    }

    private Confirmed confirmed = (deletion, now, out) -> {};

    void whenConfirmed(Confirmed listener) {
        this.confirmed = listener;
    }

    /** The Job (and, as the executor confirms it, every pod of it that had not finished) is gone. */
    void confirmed(JobDeletion.Key key, Instant now, Decisions out) {
        JobDeletion removed = state.deletions.remove(key);
        if (removed != null) {
            out.deletionChanged(key);
            confirmed.gone(removed, now, out);
        }
    }
}
