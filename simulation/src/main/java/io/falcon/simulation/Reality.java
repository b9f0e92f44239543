package io.falcon.simulation;

import java.time.Duration;
import java.util.Random;

/**
 * Ordinary production events that the first fault model ({@link Faults}) left out: what GKE, Kubernetes, Kafka and
 * the operators do on a normal day. Drawn per seed from a stream of its own, so that every draw of {@link Faults}
 * and of the scenario (and so the seeds found before these existed) stays as it was. All rates zero after the heal.
 *
 * @param reconcile a RUNNING pool goes RECONCILING for a while (GKE auto-repair, an upgrade or a resize), its nodes
 *     NotReady meanwhile
 * @param schedulerClockOffset how far the scheduler's clock is off true time (within 30 s either way, so that the
 *     clocks of two components differ by up to a minute)
 * @param executorClockOffset how far the executor's clock is off true time
 * @param submitRefusal a Kubernetes Job create is refused for good (RBAC 403, an admission webhook, a quota on Jobs)
 * @param podsRefused a Job is created but its pods cannot be (a missing service account, a quota on pods): they
 *     never appear
 */
record Reality(
        double reconcile,
        Duration schedulerClockOffset,
        Duration executorClockOffset,
        double submitRefusal,
        double podsRefused) {

    static final Reality NONE = new Reality(0, Duration.ZERO, Duration.ZERO, 0, 0);

    static Reality random(Random rnd) {
        double intensity = rnd.nextDouble();
        return new Reality(
                0.2 * intensity,
                Duration.ofMillis(rnd.nextInt(60_001) - 30_000L),
                Duration.ofMillis(rnd.nextInt(60_001) - 30_000L),
                0.04 * intensity,
                0.03 * intensity);
    }

    /** What is left after the heal: the clocks stay as they are, nothing else happens by chance. */
    Reality healed() {
        return new Reality(0, schedulerClockOffset, executorClockOffset, 0, 0);
    }
}
