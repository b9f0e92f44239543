package io.falcon.executor;

import io.falcon.events.executor.ExecutorEvent;

/** Where the executor reports what it observed (the EXECUTOR_EVENTS topic in production). Thread-safe. */
@FunctionalInterface
public interface EventSink {
    void emit(ExecutorEvent event);
}
