package io.falcon.executor;

import io.falcon.events.executor.ExecutorEvent;
import io.falcon.ops.FalconMetrics;

/** Records the operator-facing gauges from what the executor reports, then passes the event on. */
final class MeteredEventSink implements EventSink {
    private final EventSink next;
    private final FalconMetrics metrics;

    MeteredEventSink(EventSink next, FalconMetrics metrics) {
        this.next = next;
        this.metrics = metrics;
    }

    @Override
    public void emit(ExecutorEvent event) {
        if (event instanceof ExecutorEvent.NodePoolInventory inventory) {
            metrics.activePools(inventory.clusterId(), inventory.pools().size());
        }
        next.emit(event);
    }
}
