package io.falcon.executor;

import io.falcon.events.executor.ExecutorEvent;
import io.falcon.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** An EventSink that keeps what it is given, with waiting helpers for tests. */
public final class RecordingSink implements EventSink {
    private final List<ExecutorEvent> events = new ArrayList<>();

    @Override
    public synchronized void emit(ExecutorEvent event) {
        events.add(event);
    }

    public synchronized List<ExecutorEvent> all() {
        return List.copyOf(events);
    }

    public synchronized <T extends ExecutorEvent> List<T> of(Class<T> type, String jobId) {
        return events.stream()
                .filter(type::isInstance)
                .map(type::cast)
                .filter(e -> e.jobId().equals(jobId))
                .toList();
    }

    /** Waits for the first event of the type for the job. */
    public <T extends ExecutorEvent> T await(Class<T> type, String jobId, Duration timeout) {
        return await(type, jobId, e -> true, timeout);
    }

    public <T extends ExecutorEvent> T await(Class<T> type, String jobId, Predicate<T> filter, Duration timeout) {
        return Await.present(
                type.getSimpleName() + " for job " + jobId,
                timeout,
                () -> all().stream()
                        .filter(e -> type.isInstance(e) && e.jobId().equals(jobId))
                        .map(type::cast)
                        .filter(filter)
                        .findFirst(),
                () -> "events " + all());
    }
}
