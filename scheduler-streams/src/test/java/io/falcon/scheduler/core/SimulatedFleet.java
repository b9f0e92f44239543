package io.falcon.scheduler.core;

import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Plays the executor and the edge clusters for property tests: answers each command the scheduler sent, one step
 * at a time in an order the test chooses, and lets Kubernetes Jobs run and finish.
 */
final class SimulatedFleet {
    /** Something the fleet will do when the test lets it. */
    sealed interface Pending {}

    record Answer(ExecutorCommand command) implements Pending {}

    record StartPods(ExecutorCommand.EnsureJob job) implements Pending {}

    record FinishPods(ExecutorCommand.EnsureJob job, boolean succeed) implements Pending {}

    final List<Pending> pending = new ArrayList<>();
    final Set<String> livePools = new HashSet<>();
    final List<ExecutorEvent> delivered = new ArrayList<>();
    private final Consumer<ExecutorEvent> deliver;

    SimulatedFleet(Consumer<ExecutorEvent> deliver) {
        this.deliver = deliver;
    }

    void accept(List<ExecutorCommand> commands) {
        commands.forEach(c -> pending.add(new Answer(c)));
    }

    boolean idle() {
        return pending.isEmpty();
    }

    /** Performs the pending item chosen by index (modulo), failing pool creations or jobs when told to. */
    void step(int index, boolean failIt, Instant now) {
        if (pending.isEmpty()) {
            return;
        }
        Pending item = pending.get(Math.floorMod(index, pending.size()));
        if (item instanceof Answer chosen) {
            // The executor handles the commands about one pool or one job in the order they were sent.
            String resource = resource(chosen.command());
            item = pending.stream()
                    .filter(p -> p instanceof Answer a && resource(a.command()).equals(resource))
                    .findFirst()
                    .orElseThrow();
        }
        pending.remove(item);
        Meta meta = Meta.of("fleet", now);
        if (item instanceof Answer answer) {
            answer(answer.command(), failIt, meta);
        } else if (item instanceof StartPods start) {
            var job = start.job();
            emit(new ExecutorEvent.JobRunning(
                    meta,
                    job.jobId(),
                    job.cluster().clusterId(),
                    job.tpuType(),
                    job.k8sJobName(),
                    "uid-" + job.jobId(),
                    1,
                    1,
                    java.util.Optional.empty()));
            pending.add(new FinishPods(job, !failIt));
        } else if (item instanceof FinishPods finish) {
            var job = finish.job();
            emit(
                    finish.succeed()
                            ? new ExecutorEvent.JobSucceeded(
                                    meta, job.jobId(), job.cluster().clusterId(), job.tpuType(), job.k8sJobName())
                            : new ExecutorEvent.JobFailed(
                                    meta,
                                    job.jobId(),
                                    job.cluster().clusterId(),
                                    job.tpuType(),
                                    job.k8sJobName(),
                                    "Pod terminated: Error (exit code 1)"));
        }
    }

    private void answer(ExecutorCommand command, boolean failIt, Meta meta) {
        String cluster = command.cluster().clusterId();
        String tpu = command.cluster().tpuType();
        if (command instanceof ExecutorCommand.EnsureNodePool pool) {
            if (failIt) {
                emit(new ExecutorEvent.NodePoolCreateFailed(
                        meta,
                        pool.jobId(),
                        cluster,
                        tpu,
                        pool.nodePoolName(),
                        false,
                        0,
                        "Quota 'TPUS_PER_PROJECT' exceeded"));
            } else {
                livePools.add(pool.nodePoolName());
                emit(new ExecutorEvent.NodePoolReady(meta, pool.jobId(), cluster, tpu, pool.nodePoolName()));
            }
        } else if (command instanceof ExecutorCommand.EnsureJob job) {
            if (failIt) {
                emit(new ExecutorEvent.JobSubmitFailed(
                        meta, job.jobId(), cluster, tpu, job.k8sJobName(), "denied", false));
            } else {
                emit(new ExecutorEvent.JobSubmitted(
                        meta, job.jobId(), cluster, tpu, job.k8sJobName(), "uid-" + job.jobId()));
                pending.add(new StartPods(job));
            }
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted deleted) {
            pending.removeIf(p -> (p instanceof StartPods s && s.job().jobId().equals(deleted.jobId()))
                    || (p instanceof FinishPods f && f.job().jobId().equals(deleted.jobId())));
            emit(new ExecutorEvent.JobDeleted(meta, deleted.jobId(), cluster, tpu, deleted.k8sJobName()));
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted deleted) {
            livePools.remove(deleted.nodePoolName());
            emit(new ExecutorEvent.NodePoolDeleted(meta, deleted.jobId(), cluster, tpu, deleted.nodePoolName()));
        }
    }

    private static String resource(ExecutorCommand command) {
        if (command instanceof ExecutorCommand.EnsureNodePool pool) {
            return "pool:" + pool.nodePoolName();
        }
        if (command instanceof ExecutorCommand.EnsureNodePoolDeleted pool) {
            return "pool:" + pool.nodePoolName();
        }
        return "job:" + command.jobId();
    }

    private void emit(ExecutorEvent event) {
        delivered.add(event);
        deliver.accept(event);
    }
}
