package io.falcon.bench.chaos;

import io.falcon.local.processes.DeploymentSpec;
import io.falcon.local.processes.ProcessFalcon;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;

/**
 * The chaos: every 5-20 s it SIGKILLs an instance of a random component (the least killed one first, so every
 * component is killed about as often) and starts it again 1-3 s later; once, at set points of the run's progress, it
 * restarts the broker, restarts MariaDB, and runs a second scheduler and executor for a while (group rebalances).
 */
public final class Monkey implements Runnable {

    /** Something the monkey did, for the run's report. */
    public record Act(Instant at, String what) {}

    private final ProcessFalcon falcon;
    private final Random random;
    private final DoubleSupplier progress;
    private final Duration minPause;
    private final Duration maxPause;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, Integer> kills = new LinkedHashMap<>();
    private final List<Act> acts = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private boolean brokerRestarted;
    private boolean mariaDbRestarted;
    private boolean extrasAdded;
    private boolean extrasRemoved;
    private final List<String> extras = new ArrayList<>();

    /** progress: 0..1, how far the run is (submissions made, jobs final); the one-off acts happen at set points. */
    public Monkey(ProcessFalcon falcon, long seed, DoubleSupplier progress, Duration minPause, Duration maxPause) {
        this.falcon = falcon;
        this.random = new Random(seed);
        this.progress = progress;
        this.minPause = minPause;
        this.maxPause = maxPause;
        DeploymentSpec.PIPELINE.forEach(c -> kills.put(c, 0));
    }

    @Override
    public void run() {
        while (!stop.get()) {
            long pause =
                    minPause.toMillis() + (long) (random.nextDouble() * (maxPause.toMillis() - minPause.toMillis()));
            if (!sleep(pause)) {
                return;
            }
            try {
                oneOffs();
                killOne();
            } catch (RuntimeException e) {
                synchronized (this) {
                    failures.add(Instant.now() + " " + e.getMessage());
                }
            }
        }
    }

    private void oneOffs() {
        double p = progress.getAsDouble();
        if (!extrasAdded && p >= 0.15) {
            extrasAdded = true;
            for (String component : List.of("scheduler", "executor")) {
                String name = falcon.addInstance(component);
                synchronized (this) {
                    extras.add(name);
                }
                act("started a second instance " + name + " (rebalance)");
            }
        }
        if (!brokerRestarted && p >= 0.35) {
            brokerRestarted = true;
            falcon.restartBroker();
            act("killed and restarted the Kafka broker");
        }
        if (!extrasRemoved && p >= 0.55) {
            extrasRemoved = true;
            List<String> toRemove;
            synchronized (this) {
                toRemove = List.copyOf(extras);
                extras.clear();
            }
            for (String name : toRemove) {
                falcon.removeInstance(name);
                act("stopped the second instance " + name + " (rebalance)");
            }
        }
        if (!mariaDbRestarted && p >= 0.7) {
            mariaDbRestarted = true;
            falcon.restartMariaDb();
            act("restarted MariaDB");
        }
    }

    private void killOne() {
        int fewest = kills.values().stream().min(Integer::compare).orElse(0);
        List<String> candidates = kills.entrySet().stream()
                .filter(e -> e.getValue() == fewest)
                .map(Map.Entry::getKey)
                .toList();
        String component = candidates.get(random.nextInt(candidates.size()));
        List<String> instances = falcon.instanceNames().stream()
                .filter(n -> n.startsWith(component + "-"))
                .sorted(Comparator.naturalOrder())
                .toList();
        String victim = instances.get(random.nextInt(instances.size()));
        falcon.kill(victim);
        act("kill -9 " + victim);
        synchronized (this) {
            kills.merge(component, 1, Integer::sum);
        }
        sleep(1000 + random.nextInt(2000));
        falcon.restart(victim);
        act("restarted " + victim);
    }

    private synchronized void act(String what) {
        acts.add(new Act(Instant.now(), what));
        System.out.printf("  [chaos %s] %s%n", java.time.LocalTime.now().withNano(0), what);
    }

    /** Whether every component was killed at least {@code times} times and every one-off happened. */
    public synchronized boolean done(int times) {
        return kills.values().stream().allMatch(k -> k >= times)
                && brokerRestarted
                && mariaDbRestarted
                && extrasRemoved;
    }

    public void stop() {
        stop.set(true);
    }

    public synchronized Map<String, Integer> kills() {
        return Map.copyOf(kills);
    }

    public synchronized List<Act> acts() {
        return List.copyOf(acts);
    }

    public synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    public synchronized boolean brokerRestarted() {
        return brokerRestarted;
    }

    public synchronized boolean mariaDbRestarted() {
        return mariaDbRestarted;
    }

    public synchronized boolean rebalanced() {
        return extrasAdded && extrasRemoved;
    }

    private boolean sleep(long millis) {
        long until = System.currentTimeMillis() + millis;
        while (!stop.get()) {
            long left = until - System.currentTimeMillis();
            if (left <= 0) {
                return true;
            }
            try {
                Thread.sleep(Math.min(left, 200));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
