package io.falcon.console.view;

import io.falcon.events.status.StartEstimate;
import io.falcon.events.status.TaskStatus;
import java.time.Instant;
import java.util.Optional;

/** One Status / Reason / Message change of a job, as falcon.task-status carried it. */
public record Transition(
        Instant at,
        long version,
        String status,
        Optional<String> reason,
        String message,
        Optional<String> clusterId,
        Optional<String> nodePoolName,
        Optional<StartEstimate> estimate,
        int attempt) {

    public static Transition of(TaskStatus s) {
        return new Transition(
                s.meta().occurredAt(),
                s.version(),
                s.status().name(),
                s.reason().map(Enum::name),
                s.message(),
                s.clusterId(),
                s.nodePoolName(),
                s.estimatedStart(),
                s.attempt());
    }

    /** "Pending/Waiting" or "Running". */
    public String state() {
        return status + reason.map(r -> "/" + r).orElse("");
    }

    public boolean waiting() {
        return status.equals("Pending") && reason.filter("Waiting"::equals).isPresent();
    }

    public boolean terminal() {
        return status.equals("Succeeded") || status.equals("Failed") || status.equals("Aborted");
    }
}
