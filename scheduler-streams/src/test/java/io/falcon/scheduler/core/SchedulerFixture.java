package io.falcon.scheduler.core;

import io.falcon.events.ClusterStatus;
import io.falcon.events.Meta;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Drives a Scheduler by hand and records everything it decided. */
final class SchedulerFixture {
    static final String SPEC = "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\",\"train.py\"]}";

    final Scheduler scheduler;

    /** What the scheduler names a job's node pool and Kubernetes Job (the default installation). */
    static String name(String jobId) {
        return io.falcon.events.ResourceNames.nodePool(io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, jobId);
    }

    final List<TaskStatus> statuses = new ArrayList<>();
    final List<ExecutorCommand> commands = new ArrayList<>();
    final List<io.falcon.events.decision.Decision> ledger = new ArrayList<>();
    Instant now = Instant.parse("2026-12-02T10:00:00Z");
    /** Where every step's changes are persisted, as the shell does, when a test restores from it. */
    private Optional<SchedulerStore> store = Optional.empty();

    /** The seed's rule, one job acquiring per queue: these tests are about queueing (ParallelAcquisitionTest: more). */
    SchedulerFixture() {
        this(SchedulerSettings.defaults().withAcquirersPerQueue(1));
    }

    SchedulerFixture(SchedulerSettings settings) {
        this(new Scheduler(settings));
    }

    /** Drives a scheduler restored elsewhere. */
    SchedulerFixture(Scheduler restored) {
        scheduler = restored;
    }

    static ClusterRow cluster(String id, String tpuType, String status, Optional<String> reservation) {
        return new ClusterRow(
                id,
                "edge-" + id,
                "proj-" + id,
                "us-central1",
                tpuType,
                "bucket-" + id,
                reservation,
                ClusterStatus.fromWire(status),
                Optional.empty());
    }

    SchedulerFixture withCluster(String id, String tpuType) {
        return record(scheduler.clusterUpserted(cluster(id, tpuType, "active", Optional.empty()), now));
    }

    SchedulerFixture persistingTo(SchedulerStore target) {
        store = Optional.of(target);
        return this;
    }

    SchedulerFixture record(Decisions decisions) {
        store.ifPresent(target -> SchedulerStore.persist(scheduler, decisions, target));
        statuses.addAll(decisions.statuses());
        commands.addAll(decisions.commands());
        ledger.addAll(decisions.ledger());
        return this;
    }

    static JobRequest request(String id, String actor, String tpuType, String topology, String spec) {
        return new JobRequest(
                id,
                actor,
                "name-" + id,
                tpuType,
                topology,
                spec,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z"));
    }

    SchedulerFixture submit(String id, String actor) {
        return submit(request(id, actor, "v6e", "2x4", SPEC));
    }

    SchedulerFixture submit(JobRequest request) {
        return record(scheduler.submit(request, now));
    }

    SchedulerFixture abort(String id) {
        return record(scheduler.abort(id, now));
    }

    /**
     * Time passes with an executor that keeps up: its heartbeat says every cluster the scheduler knows (and every
     * place a job of it is) is observed through now, plus the slack (as an executor whose clock is that far ahead
     * would say), so deadlines fire when due; then the timers tick.
     */
    SchedulerFixture advance(Duration duration) {
        now = now.plus(duration);
        record(scheduler.observe(heartbeat(now.plus(scheduler.settings().observationSlack())), now));
        return record(scheduler.tick(now));
    }

    /**
     * As {@link #advance}, with a tick (after a heartbeat) every {@link #STEP}, as a live scheduler's punctuator
     * does: its re-drives go out on time, so a deadline that waits for the executor's answer to one is not restarted
     * as after a stall.
     */
    SchedulerFixture advanceTicking(Duration duration) {
        Instant until = now.plus(duration);
        while (now.isBefore(until)) {
            Duration left = Duration.between(now, until);
            advance(left.compareTo(STEP) < 0 ? left : STEP);
        }
        return this;
    }

    static final Duration STEP = Duration.ofSeconds(10);

    /** A live scheduler ticking every {@link #STEP} while the executor says nothing (down, or cut off). */
    SchedulerFixture advanceWithoutExecutor(Duration duration) {
        Instant until = now.plus(duration);
        while (now.isBefore(until)) {
            Duration left = Duration.between(now, until);
            now = now.plus(left.compareTo(STEP) < 0 ? left : STEP);
            record(scheduler.tick(now));
        }
        return this;
    }

    /** The scheduler was stalled or down for that long and the executor said nothing: one tick at the end. */
    SchedulerFixture stall(Duration duration) {
        now = now.plus(duration);
        return record(scheduler.tick(now));
    }

    /** A heartbeat observing every cluster the scheduler knows, and every cluster a job of it is on, through then. */
    ExecutorEvent.Heartbeat heartbeat(Instant through) {
        java.util.Set<String> clusters = new java.util.TreeSet<>();
        scheduler.clusters().forEach(c -> clusters.add(c.target().resourceName()));
        scheduler.jobs().forEach(j -> j.target().ifPresent(t -> clusters.add(t.resourceName())));
        return new ExecutorEvent.Heartbeat(
                meta(),
                "",
                "",
                "",
                "executor-0",
                clusters.stream()
                        .map(c -> new ExecutorEvent.ClusterObserved(c, through))
                        .toList());
    }

    SchedulerFixture observe(ExecutorEvent event) {
        return record(scheduler.observe(event, now));
    }

    /** Plays the executor's part for the pool creation a job is waiting for. */
    SchedulerFixture poolReady(String jobId) {
        ExecutorCommand.EnsureNodePool ensure = lastCommand(ExecutorCommand.EnsureNodePool.class, jobId);
        return observe(new ExecutorEvent.NodePoolReady(
                meta(), jobId, ensure.cluster().clusterId(), "v6e", ensure.nodePoolName()));
    }

    SchedulerFixture submitted(String jobId) {
        ExecutorCommand.EnsureJob ensure = lastCommand(ExecutorCommand.EnsureJob.class, jobId);
        return observe(new ExecutorEvent.JobSubmitted(
                meta(), jobId, ensure.cluster().clusterId(), "v6e", ensure.k8sJobName(), "uid-" + jobId));
    }

    SchedulerFixture running(String jobId) {
        return running(jobId, Optional.empty());
    }

    /** All pods run; the last of them was bound to its node at podsBoundAt (the edge cluster's clock). */
    SchedulerFixture running(String jobId, Optional<Instant> podsBoundAt) {
        ExecutorCommand.EnsureJob ensure = lastCommand(ExecutorCommand.EnsureJob.class, jobId);
        return observe(new ExecutorEvent.JobRunning(
                meta(),
                jobId,
                ensure.cluster().clusterId(),
                "v6e",
                ensure.k8sJobName(),
                "uid-" + jobId,
                2,
                2,
                podsBoundAt));
    }

    SchedulerFixture succeeded(String jobId) {
        ExecutorCommand.EnsureJob ensure = lastCommand(ExecutorCommand.EnsureJob.class, jobId);
        return observe(new ExecutorEvent.JobSucceeded(
                meta(), jobId, ensure.cluster().clusterId(), "v6e", ensure.k8sJobName()));
    }

    /** Pool ready, job submitted, pods running. */
    SchedulerFixture startRunning(String jobId) {
        return poolReady(jobId).submitted(jobId).running(jobId);
    }

    <T extends ExecutorCommand> T lastCommand(Class<T> type, String jobId) {
        for (int i = commands.size() - 1; i >= 0; i--) {
            ExecutorCommand command = commands.get(i);
            if (type.isInstance(command) && command.jobId().equals(jobId)) {
                return type.cast(command);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " for " + jobId + " in " + commands);
    }

    <T extends ExecutorCommand> List<T> commandsOf(Class<T> type) {
        return commands.stream().filter(type::isInstance).map(type::cast).toList();
    }

    TaskStatus last(String jobId) {
        for (int i = statuses.size() - 1; i >= 0; i--) {
            if (statuses.get(i).jobId().equals(jobId)) {
                return statuses.get(i);
            }
        }
        throw new AssertionError("no status for " + jobId);
    }

    List<TaskStatus> of(String jobId) {
        return statuses.stream().filter(s -> s.jobId().equals(jobId)).toList();
    }

    Meta meta() {
        return Meta.of("executor", now);
    }
}
