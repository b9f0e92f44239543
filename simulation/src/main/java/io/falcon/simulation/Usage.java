package io.falcon.simulation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the fleet's TPU chips did, recorded from the outside as the fleet sees it (true time, not Falcon's view):
 * when each job's pods ran, and when each pool's VMs held their reservation. {@link Goodput} turns it into
 * utilization, waits and idle chip time.
 */
final class Usage {
    /** A job's pods running on their slice, from their start until they ended (empty: still running). */
    record Run(String falconJobId, String reservation, int chips, Instant from, Optional<Instant> until) {}

    /** A pool's VMs counted against a reservation, from when they came up until the pool was gone. */
    record Hold(String pool, String reservation, int chips, Instant from, Optional<Instant> until) {}

    private final Map<String, Run> runs = new HashMap<>();
    private final List<Run> ended = new ArrayList<>();
    private final Map<String, Hold> holds = new HashMap<>();
    private final List<Hold> released = new ArrayList<>();

    void started(String kjobKey, String falconJobId, String reservation, int chips, Instant at) {
        runs.put(kjobKey, new Run(falconJobId, reservation, chips, at, Optional.empty()));
    }

    /** Its pods ended (completed, failed, or killed with their Job or nodes): idempotent. */
    void stopped(String kjobKey, Instant at) {
        Run run = runs.remove(kjobKey);
        if (run != null) {
            ended.add(new Run(run.falconJobId(), run.reservation(), run.chips(), run.from(), Optional.of(at)));
        }
    }

    void holding(String poolKey, String reservation, int chips, Instant at) {
        holds.put(poolKey, new Hold(poolKey, reservation, chips, at, Optional.empty()));
    }

    /** The pool is gone (deleted, failed, removed): idempotent, and nothing for a pool that held nothing. */
    void released(String poolKey, Instant at) {
        Hold hold = holds.remove(poolKey);
        if (hold != null) {
            released.add(new Hold(hold.pool(), hold.reservation(), hold.chips(), hold.from(), Optional.of(at)));
        }
    }

    List<Run> runs() {
        List<Run> all = new ArrayList<>(ended);
        all.addAll(runs.values());
        return all;
    }

    List<Hold> holds() {
        List<Hold> all = new ArrayList<>(released);
        all.addAll(holds.values());
        return all;
    }
}
