package io.falcon.simulation;

import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs table as the upper components and the status-sink write it: the upper components insert rows, set them
 * Aborting and (outside the contract) write other statuses or re-insert an id; the status-sink applies each status
 * through the guards of its SQL (StatusWriter): an event not newer than the last applied version of the job changes
 * nothing, a terminal row keeps its status and reason (its Message may be amended), and a row set to Aborting moves
 * on only to Aborting or a terminal status. At quiescence every row must be terminal and equal its job's last status.
 */
final class SimRows {
    /** One row: what a reader of the table sees. */
    static final class Row {
        String status = Status.Pending.name();
        Optional<Reason> reason = Optional.empty();
        String message = "";
    }

    private final Map<String, Row> rows = new HashMap<>();
    /** falcon_status_versions: the last version applied per job id (kept across a DELETE of the row). */
    private final Map<String, Long> versions = new HashMap<>();

    void inserted(String jobId, String status) {
        Row row = new Row();
        row.status = status;
        rows.put(jobId, row);
    }

    void written(String jobId, String status) {
        Row row = rows.get(jobId);
        if (row != null) {
            row.status = status;
        }
    }

    /** The status-sink applies a status (the row may not exist: the event is then dead-lettered). */
    void apply(TaskStatus s) {
        Row row = rows.get(s.jobId());
        if (row == null) {
            return;
        }
        boolean terminal = isTerminal(row.status);
        boolean amendment = row.status.equals(s.status().name())
                && row.reason.equals(s.reason())
                && versions.containsKey(s.jobId());
        if (terminal && !amendment) {
            return;
        }
        if (row.status.equals(Status.Aborting.name())
                && !(s.status() == Status.Aborting || s.status().isTerminal())) {
            return;
        }
        if (versions.getOrDefault(s.jobId(), Long.MIN_VALUE) >= s.version()) {
            return;
        }
        row.status = s.status().name();
        row.reason = s.reason();
        row.message = s.message();
        versions.put(s.jobId(), s.version());
    }

    Map<String, Row> rows() {
        return rows;
    }

    static boolean isTerminal(String status) {
        return status.equals(Status.Succeeded.name())
                || status.equals(Status.Failed.name())
                || status.equals(Status.Aborted.name());
    }
}
