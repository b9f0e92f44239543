package io.falcon.scheduler.core;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * The writes of the upper components that the jobs table's contract does not name (an INSERT submits, status
 * Aborting aborts), each with a defined answer and a terminal status, so that no row is left non-terminal:
 * <ul>
 *   <li>an abort of a job that already ended (the row overwritten with Aborting): the final status again, saying
 *       the abort came after the end;</li>
 *   <li>an abort of a job Falcon has no record of (an INSERT already Aborting, or a job forgotten after the
 *       retention): Aborted, saying why;</li>
 *   <li>a status Falcon never writes (back to Pending, a value that is no status): the job's own status again,
 *       saying so; for a job Falcon has no record of, Failed/InvalidSpec naming {@code status};</li>
 *   <li>a new row under an id already used (a DELETE and INSERT): the earlier job's status again, saying the id is
 *       taken;</li>
 *   <li>a changed priority: honoured while the job waits (it takes its new place in the queue, the Message says
 *       so), refused visibly once it has started or for a value out of range.</li>
 * </ul>
 * Each answer is a newer version of the job's status, so the status-sink writes it over the row.
 */
final class UpperWrites {
    private final SchedulerState state;
    private final QueueSlots slots;

    UpperWrites(SchedulerState state, QueueSlots slots) {
        this.state = state;
        this.slots = slots;
    }

    /** An abort of a job that is not live: it ended, or Falcon has no record of it. */
    void abortOfNoLiveJob(String jobId, Instant now, Decisions out) {
        Optional<ScheduledJob> ended = state.retired.find(jobId, now, state.settings.terminalRetention());
        if (ended.isPresent()) {
            // an abort redelivered after the job was aborted needs no note; any other end is kept, and says so
            ScheduledJob done = ended.get();
            republishEnd(done, done.status() == Status.Aborted ? "" : Messages.abortAfterEnd(done.status()), now, out);
            return;
        }
        out.publish(answer(jobId, Status.Aborted, Optional.empty(), Messages.abortOfUnknownJob(jobId), now));
    }

    /** A snapshot row Falcon wrote, of a job it no longer knows: it ended long ago, and is not run again. */
    void forgottenJobSnapshotted(String jobId, Instant now, Decisions out) {
        out.publish(answer(
                jobId,
                Status.Failed,
                Optional.of(Reason.JobFailed),
                Messages.forgottenJobSnapshotted(state.settings.terminalRetention()),
                now));
    }

    /** An upper component wrote a status Falcon never writes: the job's own status goes back over it. */
    void rewrite(String jobId, String written, Instant now, Decisions out) {
        String note = Messages.statusRewritten(written);
        ScheduledJob live = state.jobs.get(jobId);
        if (live != null) {
            state.publish(live, live.status(), live.reason(), Messages.withNote(live.message(), note), now, out);
            return;
        }
        Optional<ScheduledJob> ended = state.retired.find(jobId, now, state.settings.terminalRetention());
        if (ended.isPresent()) {
            republishEnd(ended.get(), note, now, out);
            return;
        }
        out.publish(answer(
                jobId, Status.Failed, Optional.of(Reason.InvalidSpec), Messages.statusOfUnknownJob(written), now));
    }

    /**
     * A submission of a known id whose request differs from the job's (a DELETE and INSERT reusing the id; a
     * redelivery carries the same request and is a duplicate): the job's status again, saying the id is taken.
     */
    boolean reusedId(JobRequest request, Instant now, Decisions out) {
        Optional<ScheduledJob> known = Optional.ofNullable(state.jobs.get(request.id()))
                .or(() -> state.retired.find(request.id(), now, state.settings.terminalRetention()));
        if (known.isEmpty() || sameRequest(known.get(), request)) {
            return false;
        }
        ScheduledJob job = known.get();
        String note = Messages.idReused(job.request().createdAt());
        if (job.phase() == Phase.DONE) {
            republishEnd(job, note, now, out);
        } else {
            state.publish(job, job.status(), job.reason(), Messages.withNote(job.message(), note), now, out);
        }
        return true;
    }

    /** The priority column changed: honoured while the job waits, refused visibly otherwise. */
    void reprioritize(String jobId, Optional<Long> priority, Instant now, Decisions out) {
        ScheduledJob job = state.jobs.get(jobId);
        if (job == null) {
            return; // ended or unknown: its row is terminal or answered otherwise; priority means nothing there
        }
        io.falcon.events.PriorityLimits.Range allowed =
                state.settings.admission().priorityLimits().of(job.actor());
        Optional<Integer> valid = priority.filter(allowed::contains).map(Long::intValue);
        String shown = priority.map(String::valueOf).orElse("NULL");
        if (valid.isEmpty()) {
            note(job, Messages.priorityRefused(shown, allowed, job.actor()), now, out);
            return;
        }
        int value = valid.get();
        if (value == job.request().priority()) {
            return;
        }
        switch (job.phase()) {
            case WAITING -> {
                QueueKey key = job.queue().orElseThrow();
                WaitQueue queue = state.queue(key);
                queue.remove(state.entry(job));
                ScheduledJob moved = job.withPriority(value);
                state.store(moved, out);
                queue.add(state.entry(moved));
                out.queueChanged(key);
                note(moved, Messages.priorityChanged(value), now, out);
                slots.refreshPositions(key, now, out);
            }
            case UNPLACED -> note(job.withPriority(value), Messages.priorityChanged(value), now, out);
            default -> note(job, Messages.priorityTooLate(value), now, out);
        }
    }

    private void note(ScheduledJob job, String note, Instant now, Decisions out) {
        state.publish(job, job.status(), job.reason(), Messages.withNote(job.message(), note), now, out);
    }

    private void republishEnd(ScheduledJob done, String note, Instant now, Decisions out) {
        state.republishEnd(done, note.isEmpty() ? done.message() : Messages.withNote(done.message(), note), now, out);
    }

    private static boolean sameRequest(ScheduledJob job, JobRequest request) {
        ValidRequest known = job.request();
        return known.createdAt().equals(request.createdAt())
                && known.actor().equals(request.actor())
                && known.name().equals(request.name())
                && known.tpuType().wireName().equals(request.tpuType())
                && known.topology().text().equals(request.topology());
    }

    /** A status for a job Falcon keeps nothing of: version 1 of an answer, terminal. */
    private static TaskStatus answer(
            String jobId, Status status, Optional<Reason> reason, String message, Instant now) {
        return new TaskStatus(
                SchedulerState.meta(now),
                jobId,
                1,
                status,
                reason,
                message,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(now),
                status == Status.Aborted ? Optional.of(now) : Optional.empty(),
                Optional.empty());
    }
}
