package io.falcon.scheduler.core;

import io.falcon.events.executor.SupplyMode;

/**
 * What a start-time history is kept per: a (cluster, topology) queue and the supply mode its jobs' pools are made
 * with, since a reservation, an on-demand and a flex-start pool take very different times to come up.
 */
public record HistoryKey(String clusterId, String topology, SupplyMode supplyMode) implements Comparable<HistoryKey> {
    public QueueKey queue() {
        return new QueueKey(clusterId, topology);
    }

    public String asString() {
        return queue().asString() + "|" + supplyMode.wireName();
    }

    public static HistoryKey parse(String text) {
        int bar = text.lastIndexOf('|');
        QueueKey queue = QueueKey.parse(text.substring(0, bar));
        return new HistoryKey(
                queue.clusterId(),
                queue.topology(),
                SupplyMode.fromWire(text.substring(bar + 1)).orElseThrow());
    }

    @Override
    public int compareTo(HistoryKey other) {
        int byQueue = queue().compareTo(other.queue());
        return byQueue != 0 ? byQueue : supplyMode.compareTo(other.supplyMode);
    }
}
