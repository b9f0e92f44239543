package io.falcon.ops;

import org.apache.kafka.streams.KafkaStreams;

/** Health of a Kafka Streams instance; {@link KafkaStreams#state()} is safe to read from any thread. */
public final class StreamsChecks {
    private StreamsChecks() {}

    /** Readiness: RUNNING and REBALANCING are ready (a rebalance is routine); anything else is not. */
    public static ReadinessCheck ready(String name, KafkaStreams streams) {
        return ReadinessCheck.of(name, () -> {
            KafkaStreams.State state = streams.state();
            return switch (state) {
                case RUNNING, REBALANCING -> ReadinessCheck.Result.ok("state " + state);
                default -> ReadinessCheck.Result.fail("state " + state);
            };
        });
    }

    /**
     * Liveness: only ERROR and NOT_RUNNING/PENDING_ERROR are dead (the stream threads are gone, a restart is the
     * cure). CREATED, REBALANCING and PENDING_SHUTDOWN are alive.
     */
    public static ReadinessCheck alive(String name, KafkaStreams streams) {
        return ReadinessCheck.of(name, () -> {
            KafkaStreams.State state = streams.state();
            return switch (state) {
                case ERROR, PENDING_ERROR, NOT_RUNNING -> ReadinessCheck.Result.fail("state " + state);
                default -> ReadinessCheck.Result.ok("state " + state);
            };
        });
    }
}
