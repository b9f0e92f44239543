package io.falcon.events;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/** What every event carries: a unique id, when it happened, and which component produced it. */
public record Meta(String eventId, Instant occurredAt, String producer) {
    public Meta {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(producer, "producer");
    }

    public static Meta of(String producer, Instant occurredAt) {
        return new Meta(UUID.randomUUID().toString(), occurredAt, producer);
    }

    /** A deterministic id, for events that must be recognisable when produced again after a restart. */
    public static Meta deterministic(String producer, Instant occurredAt, String identity) {
        return new Meta(NameUuid.of(identity), occurredAt, producer);
    }
}
