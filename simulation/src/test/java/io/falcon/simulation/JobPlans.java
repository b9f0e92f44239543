package io.falcon.simulation;

import io.falcon.events.executor.SupplyMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** A builder of scripted jobs for the regression scenarios (instead of the plan's positional constructor). */
final class JobPlans {
    private final String id;
    private String actor = "alice";
    private String tpuType = "v6e";
    private String topology = "2x4";
    private Optional<SupplyMode> supplyMode = Optional.empty();
    private Optional<Long> timeoutSeconds = Optional.empty();
    private Optional<Long> priority = Optional.empty();
    private Instant submitAt = Scenario.T0.plusSeconds(60);
    private Optional<Instant> abortAt = Optional.empty();
    private Duration runFor = Duration.ofMinutes(10);
    private Scenario.Outcome outcome = Scenario.Outcome.SUCCEED;

    private JobPlans(String id) {
        this.id = id;
    }

    static JobPlans job(String id) {
        return new JobPlans(id);
    }

    JobPlans actor(String a) {
        actor = a;
        return this;
    }

    JobPlans topology(String t) {
        topology = t;
        return this;
    }

    JobPlans supply(SupplyMode m) {
        supplyMode = Optional.of(m);
        return this;
    }

    JobPlans timeoutSeconds(long s) {
        timeoutSeconds = Optional.of(s);
        return this;
    }

    JobPlans submittedAfter(Duration d) {
        submitAt = Scenario.T0.plus(d);
        return this;
    }

    JobPlans runFor(Duration d) {
        runFor = d;
        return this;
    }

    JobPlans priority(long p) {
        priority = Optional.of(p);
        return this;
    }

    JobPlans outcome(Scenario.Outcome o) {
        outcome = o;
        return this;
    }

    Scenario.JobPlan build() {
        return new Scenario.JobPlan(
                id, actor, tpuType, topology, supplyMode, timeoutSeconds, submitAt, abortAt, runFor, outcome, priority);
    }
}
