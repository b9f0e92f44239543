package io.falcon.events.cdc;

import io.falcon.events.SchedulerInput;
import io.falcon.events.status.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which row changes the scheduler must see, and under which key (pure). Published by cdc-ingest straight to
 * falcon.scheduler.input in the order the database committed them: the scheduler sees a cluster set to maintenance
 * and a job aborted after it in that order, for every tpu_type (one partition per key).
 *
 * <p>Of the jobs table only the upper components' writes matter: an insert (submit), a change of status to Aborting
 * (abort), and snapshot rows not yet terminal. Every other change is Falcon's own status write-back and is dropped
 * here, before it costs a record. Every clusters change goes to the scheduler of its tpu_type; a row whose tpu_type
 * changed also tells the old type's scheduler that the cluster left it.
 */
public final class SchedulerRouting {
    /** Key of rows without a tpu_type: they still reach the scheduler, which answers InvalidSpec. */
    public static final String NO_TPU_TYPE = "unknown";

    private SchedulerRouting() {}

    /** One record for falcon.scheduler.input. */
    public record Routed(String key, SchedulerInput input) {}

    /** Whether a jobs change is one of the upper components' writes (the jobs table's contract). */
    public static boolean isUpperComponentWrite(JobChange change) {
        Optional<JobRow> after = change.after();
        if (after.isEmpty()) {
            return false;
        }
        String status = after.get().status();
        boolean isAborting = Status.Aborting.name().equals(status);
        boolean wasAborting = change.before()
                .map(b -> Status.Aborting.name().equals(b.status()))
                .orElse(false);
        return switch (change.op()) {
            case CREATE -> true;
            case SNAPSHOT ->
                isAborting
                        || Status.Pending.name().equals(status)
                        || Status.Running.name().equals(status);
            case UPDATE -> (isAborting && !wasAborting) || isStatusRewrite(change) || isPriorityChange(change);
            case DELETE -> false;
        };
    }

    /**
     * An UPDATE of status that Falcon's status-sink never makes, so an upper component made it: a value that is no
     * status, or a move backwards (a job that ran, ended or was being aborted set to Pending; an ended or aborting
     * one set to Running). It is no request the jobs table's contract knows: the scheduler answers it by writing the
     * job's own status back, with a Message that says so.
     */
    public static boolean isStatusRewrite(JobChange change) {
        if (change.before().isEmpty() || change.after().isEmpty()) {
            return false;
        }
        String before = change.before().get().status();
        String after = change.after().get().status();
        if (before.equals(after)) {
            return false;
        }
        Optional<Status> written = statusOf(after);
        if (written.isEmpty()) {
            return true;
        }
        Optional<Status> was = statusOf(before);
        if (was.isEmpty()) {
            return false; // from a value that is no status to one that is: Falcon's answer to an earlier rewrite
        }
        return switch (written.get()) {
            case Pending -> was.get() != Status.Pending;
            case Running -> was.get().isTerminal() || was.get() == Status.Aborting;
            default -> false;
        };
    }

    /** An UPDATE of the priority column (the status-sink never writes it): an upper component re-prioritizes. */
    public static boolean isPriorityChange(JobChange change) {
        return change.before().isPresent()
                && change.after().isPresent()
                && !change.before().get().priority().equals(change.after().get().priority());
    }

    private static Optional<Status> statusOf(String value) {
        for (Status status : Status.values()) {
            if (status.name().equals(value)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }

    public static List<Routed> route(JobChange change) {
        if (!isUpperComponentWrite(change)) {
            return List.of();
        }
        return List.of(new Routed(
                key(change.after().or(change::before).map(JobRow::tpuType)), new SchedulerInput.JobChanged(change)));
    }

    public static List<Routed> route(ClusterChange change) {
        List<Routed> out = new ArrayList<>(2);
        Optional<String> oldType = change.before().map(ClusterRow::tpuType);
        Optional<String> newType = change.after().map(ClusterRow::tpuType);
        if (oldType.isPresent() && newType.isPresent() && !oldType.equals(newType)) {
            out.add(new Routed(key(oldType), new SchedulerInput.ClusterLeft(change.clusterId())));
        }
        out.add(new Routed(key(newType.or(() -> oldType)), new SchedulerInput.ClusterChanged(change)));
        return out;
    }

    private static String key(Optional<String> tpuType) {
        return tpuType.filter(t -> !t.isBlank()).orElse(NO_TPU_TYPE);
    }
}
