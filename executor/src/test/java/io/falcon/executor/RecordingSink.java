package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.executor.ExecutorEvent;
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
        notifyAll();
    }

    public synchronized List<ExecutorEvent> all() {
        return List.copyOf(events);
    }

    public synchronized <T extends ExecutorEvent> List<T> of(Class<T> type, String jobId) {
        return events.stream().filter(type::isInstance).map(type::cast).filter(e -> e.jobId().equals(jobId)).toList();
    }

    /** Waits for the first event of the type for the job. */
    public <T extends ExecutorEvent> T await(Class<T> type, String jobId, Duration timeout) {
        return await(type, jobId, e -> true, timeout);
    }

    public synchronized <T extends ExecutorEvent> T await(Class<T> type, String jobId, Predicate<T> filter,
            Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (ExecutorEvent e : events) {
                if (type.isInstance(e) && e.jobId().equals(jobId) && filter.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                assertThat(events).as("no " + type.getSimpleName() + " for job " + jobId + " within " + timeout)
                        .anySatisfy(x -> assertThat(x).isInstanceOf(type));
                throw new AssertionError("no " + type.getSimpleName() + " for job " + jobId + "; events: " + events);
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }
}
