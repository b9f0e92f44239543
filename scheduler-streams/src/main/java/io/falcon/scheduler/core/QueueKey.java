package io.falcon.scheduler.core;

/** One queue per (cluster, topology): jobs of different clusters or shapes never block each other. */
public record QueueKey(String clusterId, String topology) implements Comparable<QueueKey> {
    public String asString() {
        return clusterId + "|" + topology;
    }

    public static QueueKey parse(String text) {
        int bar = text.lastIndexOf('|');
        return new QueueKey(text.substring(0, bar), text.substring(bar + 1));
    }

    @Override
    public int compareTo(QueueKey other) {
        int byCluster = clusterId.compareTo(other.clusterId);
        return byCluster != 0 ? byCluster : topology.compareTo(other.topology);
    }
}
