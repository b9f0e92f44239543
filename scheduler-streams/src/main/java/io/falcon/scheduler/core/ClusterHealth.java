package io.falcon.scheduler.core;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether GKE or Kubernetes keeps refusing a cluster's work (a quota, an IAM binding, an upgrade, an admission
 * policy), learnt from the executor's outcomes: {@link #FAILURES_TO_AVOID} failures in a row there (a node pool GKE
 * refused or failed, a Kubernetes Job refused for good) and no success in between (a pool accepted or ready, a Job
 * created or running) make cluster choice avoid it for a cool-down, doubled each time it trips again, up to
 * {@link #LONGEST_COOL_DOWN}. When the cool-down is over the next job may go there again (a probe): a success clears
 * the record, one more failure trips it again at once. Without this, the cluster with the shortest queue, the one
 * that fails every job at once, would be sent every new job.
 *
 * <p>Kept in memory only: a restarted scheduler learns it again from the next failures, which costs at most
 * {@link #FAILURES_TO_AVOID} jobs.
 */
final class ClusterHealth {
    static final int FAILURES_TO_AVOID = 3;
    static final Duration FIRST_COOL_DOWN = Duration.ofMinutes(10);
    static final Duration LONGEST_COOL_DOWN = Duration.ofHours(2);

    private static final class Record {
        int failuresInARow;
        int trips;
        String lastFailure = "";
        Optional<Instant> avoidedUntil = Optional.empty();
    }

    private final Map<String, Record> byCluster = new HashMap<>();
    private final List<String> tripped = new ArrayList<>();
    /** Avoidances ended before their cool-down (a success, the row moved): the next tick places their jobs. */
    private final Map<String, Instant> endedEarly = new java.util.TreeMap<>();

    private final ZoneId zone;

    ClusterHealth(ZoneId zone) {
        this.zone = zone;
    }

    /** Work failed there in a way that says the cluster refuses it; true if it is avoided from now on. */
    boolean failed(String clusterId, String what, Instant now) {
        Record r = byCluster.computeIfAbsent(clusterId, k -> new Record());
        r.failuresInARow++;
        r.lastFailure = what;
        boolean probeFailed =
                r.trips > 0 && r.avoidedUntil.filter(now::isBefore).isEmpty();
        if (r.failuresInARow < FAILURES_TO_AVOID && !probeFailed) {
            return false;
        }
        if (r.avoidedUntil.filter(now::isBefore).isPresent()) {
            return false; // already avoided: a failure of work sent before it was
        }
        r.trips++;
        Duration coolDown = FIRST_COOL_DOWN.multipliedBy(1L << Math.min(r.trips - 1, 10));
        if (coolDown.compareTo(LONGEST_COOL_DOWN) > 0) {
            coolDown = LONGEST_COOL_DOWN;
        }
        r.avoidedUntil = Optional.of(now.plus(coolDown));
        tripped.add(clusterId);
        return true;
    }

    /** Clusters that tripped since the last call: their waiting jobs are placed again elsewhere. */
    List<String> takeTripped() {
        List<String> out = new ArrayList<>(tripped);
        tripped.clear();
        return out;
    }

    /**
     * Work went through there: whatever failed before was not the cluster's doing for good. An avoidance still on
     * ends now rather than vanishing, so that the next tick places the jobs parked by it, as at a cool-down's end.
     */
    void succeeded(String clusterId, Instant now) {
        Record r = byCluster.remove(clusterId);
        if (r != null && r.avoidedUntil.filter(now::isBefore).isPresent()) {
            endedEarly.putIfAbsent(clusterId, now);
        }
    }

    /** Why choice avoids the cluster now, if it does. */
    Optional<String> avoided(String clusterId, Instant now) {
        Record r = byCluster.get(clusterId);
        if (r == null || r.avoidedUntil.filter(now::isBefore).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                r.failuresInARow + " failure(s) in a row there (last: " + shorten(r.lastFailure) + "): avoided until "
                        + DateTimeFormatter.ofPattern("HH:mm").withZone(zone).format(r.avoidedUntil.get()));
    }

    /** Clusters whose cool-down ended since the last call (their jobs may be placed again); forgets nothing else. */
    List<String> cooledDown(Instant since, Instant now) {
        java.util.Set<String> out = new java.util.TreeSet<>(endedEarly.keySet());
        endedEarly.clear();
        byCluster.forEach((id, r) -> r.avoidedUntil
                .filter(until -> until.isAfter(since) && !until.isAfter(now))
                .ifPresent(until -> out.add(id)));
        return new ArrayList<>(out);
    }

    /**
     * The earliest cool-down that ends after {@code since}, or that ended early and was not yet handed to a tick (at
     * the instant it ended, which may be {@code since} itself): a tick then places the avoided clusters' jobs again.
     */
    Optional<Instant> nextCoolDownEnd(Instant since) {
        Optional<Instant> early = endedEarly.values().stream().min(Instant::compareTo);
        Optional<Instant> regular = byCluster.values().stream()
                .flatMap(r -> r.avoidedUntil.stream())
                .filter(until -> until.isAfter(since))
                .min(Instant::compareTo);
        return early.isPresent() && regular.filter(r -> r.isBefore(early.get())).isEmpty() ? early : regular;
    }

    /**
     * The row names another GKE cluster now, or is gone: what the old one refused says nothing of what comes. As at a
     * success, an avoidance still on ends now, so that the next tick places the jobs parked by it (seed 3136: a job
     * parked by the avoidance of a cluster that then moved waited for ever).
     */
    void forget(String clusterId, Instant now) {
        succeeded(clusterId, now);
    }

    private static String shorten(String text) {
        String oneLine = text.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= 160 ? oneLine : oneLine.substring(0, 157) + "...";
    }
}
