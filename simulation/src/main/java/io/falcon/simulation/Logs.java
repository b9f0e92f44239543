package io.falcon.simulation;

import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.TaskStatus;
import io.falcon.scheduler.core.JobRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kafka topics between the simulated components, as append-only logs of what was committed (what a
 * read_committed consumer sees). Consumers keep their own positions.
 */
final class Logs {
    /** The scheduler's input, as the intake turns row changes into it. */
    sealed interface Input {}

    record Submit(JobRequest request) implements Input {}

    record Abort(String jobId) implements Input {}

    record ClusterUpsert(ClusterRow row) implements Input {}

    record ClusterRemove(String clusterId) implements Input {}

    final List<Input> inputs = new ArrayList<>();
    final List<ExecutorEvent> events = new ArrayList<>();
    final List<ExecutorCommand> commands = new ArrayList<>();
    final List<TaskStatus> statuses = new ArrayList<>();
    /** The executor group's committed offset in commands. */
    int commandsCommitted;

    Runnable onInputOrEvent = () -> {};
    /** Told of everything that crosses a topic (tracing a replayed seed); does nothing by default. */
    java.util.function.Consumer<String> trace = line -> {};

    Runnable onCommand = () -> {};

    void appendInput(Input input) {
        trace.accept("input " + input);
        inputs.add(input);
        onInputOrEvent.run();
    }

    void appendEvent(ExecutorEvent event) {
        trace.accept("event " + event);
        events.add(event);
        onInputOrEvent.run();
    }

    /** What one scheduler transaction produced, visible at its commit. */
    void commit(List<ExecutorCommand> newCommands, List<TaskStatus> newStatuses) {
        newCommands.forEach(c -> trace.accept("command " + c));
        newStatuses.forEach(s -> trace.accept("status " + s.jobId() + " v" + s.version() + " " + s.status()
                + s.reason().map(r -> "/" + r).orElse("") + " " + s.message()));
        statuses.addAll(newStatuses);
        if (!newCommands.isEmpty()) {
            commands.addAll(newCommands);
            onCommand.run();
        }
    }
}
