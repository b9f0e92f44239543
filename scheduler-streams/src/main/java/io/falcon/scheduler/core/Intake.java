package io.falcon.scheduler.core;

import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SchedulerRouting;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * Reads a jobs row change as the upper components meant it. Only two writes are theirs: an insert (or a
 * snapshot row still Pending without a decision) submits, and setting status to Aborting aborts. Everything else
 * is Falcon's own status-sink echo and is ignored, so the scheduler never reacts to itself.
 */
public final class Intake {
    private Intake() {}

    public sealed interface Intent {
        String jobId();
    }

    /**
     * A submission. {@code rowWrittenByFalcon}: a snapshot row that carries Falcon's status (Running, a Reason, a
     * cluster, a dispatch time), so Falcon took the job before; if it no longer knows the job (it ended longer ago
     * than the terminal retention while the status-sink lagged), it must not run it again.
     */
    public record Submit(JobRequest request, boolean rowWrittenByFalcon) implements Intent {
        @Override
        public String jobId() {
            return request.id();
        }
    }

    public record Abort(String jobId, Instant requestedAt) implements Intent {}

    /**
     * An upper component wrote a status Falcon never writes (back to Pending, a value that is no status): the job's
     * own status is written back, with a Message saying so.
     */
    public record Rewrite(String jobId, String written) implements Intent {}

    /** An upper component changed the priority column of the job. */
    public record Reprioritize(String jobId, Optional<Long> priority) implements Intent {}

    /**
     * Which of the upper components' writes the change is ({@link SchedulerRouting#isUpperComponentWrite}): an
     * insert submits (or aborts, when inserted Aborting), a change to Aborting aborts, a snapshot row not yet terminal
     * is submitted again (harmless: the scheduler ignores jobs it already knows) or aborted.
     */
    public static Optional<Intent> classify(JobChange change, Instant fallbackTime) {
        if (!SchedulerRouting.isUpperComponentWrite(change)) {
            return Optional.empty();
        }
        JobRow row = change.after().orElseThrow();
        if (change.op() == io.falcon.events.cdc.ChangeOp.UPDATE) {
            if (SchedulerRouting.isStatusRewrite(change)) {
                return Optional.of(new Rewrite(row.id(), row.status()));
            }
            if (!Status.Aborting.name().equals(row.status()) && SchedulerRouting.isPriorityChange(change)) {
                return Optional.of(new Reprioritize(row.id(), row.priority()));
            }
        }
        return Optional.of(
                Status.Aborting.name().equals(row.status())
                        ? abort(row, fallbackTime)
                        : submit(change, row, change.op() == ChangeOp.SNAPSHOT && writtenByFalcon(row), fallbackTime));
    }

    /** Falcon's marks on a row: only its status-sink writes Running, a Reason, a cluster or a dispatch time. */
    static boolean writtenByFalcon(JobRow row) {
        return Status.Running.name().equals(row.status())
                || row.reason().filter(r -> !r.isBlank()).isPresent()
                || row.clusterId().filter(c -> !c.isBlank()).isPresent()
                || row.dispatchedAt().isPresent();
    }

    private static Intent submit(JobChange change, JobRow row, boolean writtenByFalcon, Instant fallbackTime) {
        Instant createdAt = row.createdAt().orElse(fallbackTime);
        return new Submit(
                new JobRequest(
                        row.id(),
                        row.actor(),
                        row.name(),
                        row.tpuType(),
                        row.topology(),
                        row.spec(),
                        row.supplyMode(),
                        row.timeoutSeconds(),
                        committedAt(change, createdAt, fallbackTime),
                        row.priority(),
                        createdAt,
                        change.op() == ChangeOp.SNAPSHOT
                                ? 0
                                : ValidRequest.commitOrderOf(
                                        change.source().binlogFile(),
                                        change.source().binlogPosition(),
                                        change.source().rowInEvent()),
                        row.maxRetries()),
                writtenByFalcon);
    }

    /**
     * When the submission was committed, which orders the queue: the binlog's time of the change, which no writer
     * chooses. A snapshot row has no such time (the snapshot reads the table, not the log): its created_at, never
     * later than the read. Never later than the scheduler's clock, so that a database clock running ahead cannot put
     * a job behind ones submitted after it.
     */
    static Instant committedAt(JobChange change, Instant createdAt, Instant readAt) {
        Instant committed;
        if (change.op() == ChangeOp.SNAPSHOT) {
            committed = createdAt;
        } else if (change.source().serverTimeMillis() > 0) {
            committed = Instant.ofEpochMilli(change.source().serverTimeMillis());
        } else {
            committed = readAt; // a change without the binlog's time: when Falcon read it
        }
        return committed.isAfter(readAt) ? readAt : committed;
    }

    private static Intent abort(JobRow row, Instant fallbackTime) {
        return new Abort(row.id(), row.abortingAt().orElse(fallbackTime));
    }
}
