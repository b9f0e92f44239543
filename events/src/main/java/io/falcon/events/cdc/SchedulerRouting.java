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
            case UPDATE -> isAborting && !wasAborting;
            case DELETE -> false;
        };
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
