package io.falcon.console.view;

import java.time.Duration;
import java.time.Instant;

/**
 * A point of a queue's history: how many jobs waited in the (cluster, topology) queue when a job was placed there
 * (the ledger's candidate queue depth), or how long a job had waited when its pods ran.
 */
public record QueueSample(Instant at, String topology, int depth, Duration waited) {}
