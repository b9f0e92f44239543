package io.falcon.scheduler.core;

import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.status.Status;
import java.time.Instant;
import java.util.Optional;

/**
 * Reads a jobs row change as the upper components meant it. Only two writes are theirs: an insert (or a
 * snapshot row still Pending without a decision) submits, and setting status to Aborting aborts. Everything else
 * is Falcon's own status-sink echo and is ignored, so the scheduler never reacts to itself.
 */
public final class Intake {
    private Intake() {
    }

    public sealed interface Intent {
        String jobId();
    }

    public record Submit(JobRequest request) implements Intent {
        @Override
        public String jobId() {
            return request.id();
        }
    }

    public record Abort(String jobId, Instant requestedAt) implements Intent {
    }

    public static Optional<Intent> classify(JobChange change, Instant fallbackTime) {
        Optional<JobRow> after = change.after();
        if (after.isEmpty()) {
            return Optional.empty();
        }
        JobRow row = after.get();
        boolean isAborting = Status.Aborting.name().equals(row.status());
        boolean wasAborting = change.before().map(b -> Status.Aborting.name().equals(b.status())).orElse(false);
        return switch (change.op()) {
            case CREATE -> isAborting ? Optional.of(abort(row, fallbackTime)) : Optional.of(submit(row, fallbackTime));
            case SNAPSHOT -> snapshot(row, fallbackTime);
            case UPDATE -> isAborting && !wasAborting ? Optional.of(abort(row, fallbackTime)) : Optional.empty();
            case DELETE -> Optional.empty();
        };
    }

    /**
     * A snapshot sees rows in whatever state they are; resubmitting non-terminal ones is harmless because the
     * scheduler ignores jobs it already knows.
     */
    private static Optional<Intent> snapshot(JobRow row, Instant fallbackTime) {
        if (Status.Aborting.name().equals(row.status())) {
            return Optional.of(abort(row, fallbackTime));
        }
        if (Status.Pending.name().equals(row.status()) || Status.Running.name().equals(row.status())) {
            return Optional.of(submit(row, fallbackTime));
        }
        return Optional.empty();
    }

    private static Intent submit(JobRow row, Instant fallbackTime) {
        return new Submit(new JobRequest(row.id(), row.actor(), row.name(), row.tpuType(), row.topology(), row.spec(),
                row.supplyMode(), row.timeoutSeconds(), row.createdAt().orElse(fallbackTime)));
    }

    private static Intent abort(JobRow row, Instant fallbackTime) {
        return new Abort(row.id(), row.abortingAt().orElse(fallbackTime));
    }
}
