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

    /** An upper component wrote a status Falcon never writes (back to Pending, a value that is no status). */
    record Rewrite(String jobId, String written) implements Input {}

    /** An upper component changed the priority column. */
    record Reprioritize(String jobId, java.util.Optional<Long> priority) implements Input {}

    record ClusterUpsert(ClusterRow row) implements Input {}

    record ClusterRemove(String clusterId) implements Input {}

    /** A verdict of fault-streams about a fault of a job's devices (the scheduler reads the verdicts topic too). */
    record FaultNoted(io.falcon.events.fault.FaultVerdict verdict) implements Input {}

    /** The operator's retry switch, multicast onto the scheduler's input. */
    record RetriesSwitched(io.falcon.events.control.RetrySwitch value) implements Input {}

    final List<Input> inputs = new ArrayList<>();
    final List<ExecutorEvent> events = new ArrayList<>();
    /**
     * The record timestamps (CreateTime: the producer's clock when it sent) of inputs and events: with records
     * waiting in both topics, a Kafka Streams task processes the one with the smaller timestamp first.
     */
    final List<java.time.Instant> inputTimes = new ArrayList<>();

    final List<java.time.Instant> eventTimes = new ArrayList<>();
    /** True time, when a record is appended. */
    private final java.util.function.Supplier<java.time.Instant> clock;
    /** How far the executor's clock (its producer's timestamps) is off true time. */
    java.time.Duration eventClockOffset = java.time.Duration.ZERO;

    Logs(java.util.function.Supplier<java.time.Instant> clock) {
        this.clock = clock;
    }

    final List<ExecutorCommand> commands = new ArrayList<>();
    final List<TaskStatus> statuses = new ArrayList<>();
    /** The executor group's committed offset in commands. */
    int commandsCommitted;

    Runnable onInputOrEvent = () -> {};
    /** Told of everything that crosses a topic (tracing a replayed seed); does nothing by default. */
    java.util.function.Consumer<String> trace = line -> {};

    Runnable onCommand = () -> {};
    /** Told of every status committed (the status-sink's view). */
    java.util.function.Consumer<TaskStatus> onStatus = s -> {};

    void appendInput(Input input) {
        trace.accept("input " + input);
        inputs.add(input);
        inputTimes.add(clock.get());
        onInputOrEvent.run();
    }

    void appendEvent(ExecutorEvent event) {
        trace.accept("event " + event);
        events.add(event);
        eventTimes.add(clock.get().plus(eventClockOffset));
        onInputOrEvent.run();
    }

    /** What one scheduler transaction produced, visible at its commit. */
    void commit(List<ExecutorCommand> newCommands, List<TaskStatus> newStatuses) {
        newCommands.forEach(c -> trace.accept("command " + c));
        newStatuses.forEach(s -> trace.accept("status " + s.jobId() + " v" + s.version() + " " + s.status()
                + s.reason().map(r -> "/" + r).orElse("") + " " + s.message()));
        statuses.addAll(newStatuses);
        newStatuses.forEach(onStatus);
        if (!newCommands.isEmpty()) {
            commands.addAll(newCommands);
            onCommand.run();
        }
    }
}
