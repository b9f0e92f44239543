package io.falcon.executor.core;

import io.falcon.events.executor.ExecutorCommand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the command loop carries out the commands of one partition that one poll returned, with one flush and one
 * commit for all of them instead of one per command (pure: the plan, not the carrying out).
 *
 * <p>A restart redelivers every command after the last commit, so up to a whole batch is carried out again. That is
 * harmless for every command (each names the state it wants; "already exists" and "not found" are success) except
 * one pattern: a creation carried out again after the deletion that undid it, which would leave a Kubernetes Job or
 * node pool of an aborted task until the redelivered deletion removes it again, and count as a second creation. The
 * plan rules it out in two steps:
 *
 * <ol>
 *   <li><b>Superseded creations are skipped.</b> An EnsureJob (EnsureNodePool) followed in the same batch by the
 *       EnsureJobDeleted (EnsureNodePoolDeleted) of the same resource is not carried out: the scheduler already
 *       wants the resource gone (a task aborted or ended while its command waited), and the deletion that follows
 *       reports it gone.
 *   <li><b>Everything before a deletion that superseded a creation is committed before the deletion is carried
 *       out</b>, so no redelivery can begin at or before the skipped creation once the deletion has been carried
 *       out (a redelivered batch might end between the two and carry out the creation by itself).
 * </ol>
 *
 * Commands of different resources are independent: their order is kept, and each is carried out as before.
 */
public final class CommandBatch {
    private CommandBatch() {}

    /** One step of the plan, in order. */
    public sealed interface Step {}

    /** Carry out the command at this index of the batch. */
    public record Run(int index) implements Step {}

    /** Do not carry out the command at {@code index}: the command at {@code supersededBy} deletes what it creates. */
    public record Skip(int index, int supersededBy) implements Step {}

    /** Publish the events so far and commit the batch through this index (inclusive). */
    public record Commit(int through) implements Step {}

    /**
     * The plan for one partition's commands in offset order. An empty element is a record that could not be
     * decoded: it is "run" (dead-lettered) in its place. The plan always ends with a Commit of the last index.
     */
    public static List<Step> plan(List<Optional<ExecutorCommand>> commands) {
        // 1. From the end: the index of the first deletion of each resource that follows each position.
        Map<String, Integer> laterDeletion = new HashMap<>();
        int[] supersededBy = new int[commands.size()];
        for (int i = commands.size() - 1; i >= 0; i--) {
            supersededBy[i] = -1;
            Optional<ExecutorCommand> command = commands.get(i);
            if (command.isEmpty()) {
                continue;
            }
            Optional<String> deleted = deletes(command.get());
            if (deleted.isPresent()) {
                laterDeletion.put(deleted.get(), i);
                continue;
            }
            Optional<String> created = creates(command.get());
            if (created.isPresent() && laterDeletion.containsKey(created.get())) {
                supersededBy[i] = laterDeletion.get(created.get());
            }
        }
        // 2. In order: run or skip, committing what precedes a deletion that superseded something before it runs.
        boolean[] commitBefore = new boolean[commands.size()];
        for (int target : supersededBy) {
            if (target >= 0) {
                commitBefore[target] = true;
            }
        }
        List<Step> steps = new ArrayList<>(commands.size() + 2);
        for (int i = 0; i < commands.size(); i++) {
            if (commitBefore[i]) {
                steps.add(new Commit(i - 1));
            }
            steps.add(supersededBy[i] >= 0 ? new Skip(i, supersededBy[i]) : new Run(i));
        }
        if (!commands.isEmpty()) {
            steps.add(new Commit(commands.size() - 1));
        }
        return steps;
    }

    /**
     * The runs of one segment of the plan (the runs between two commits), in lanes that may be carried out at once:
     * commands that share a resource (a node pool, a Kubernetes Job, the task they are for) are in one lane, in
     * their offset order, so one resource's commands stay in order; commands of different resources, which are
     * independent, go to different lanes. A record that could not be decoded is a lane of its own.
     */
    public static List<List<Integer>> lanes(List<Integer> runs, List<Optional<ExecutorCommand>> commands) {
        // union-find over the runs, joined through the resources they touch
        int[] parent = new int[runs.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        Map<String, Integer> firstToucher = new HashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            Optional<ExecutorCommand> command = commands.get(runs.get(i));
            if (command.isEmpty()) {
                continue;
            }
            for (String resource : resources(command.get())) {
                Integer other = firstToucher.putIfAbsent(resource, i);
                if (other != null) {
                    parent[find(parent, i)] = find(parent, other);
                }
            }
        }
        Map<Integer, List<Integer>> byRoot = new java.util.LinkedHashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            byRoot.computeIfAbsent(find(parent, i), r -> new ArrayList<>()).add(runs.get(i));
        }
        return List.copyOf(byRoot.values());
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    /** Everything a command names that another command may name too: its task, its pool, its Job. */
    static List<String> resources(ExecutorCommand command) {
        List<String> touched = new ArrayList<>(3);
        touched.add(key(command, "task", command.jobId()));
        if (command instanceof ExecutorCommand.EnsureJob c) {
            touched.add(key(c, "job", c.k8sJobName()));
            touched.add(key(c, "pool", c.nodePoolName()));
        } else if (command instanceof ExecutorCommand.EnsureJobDeleted c) {
            touched.add(key(c, "job", c.k8sJobName()));
        } else if (command instanceof ExecutorCommand.EnsureNodePool c) {
            touched.add(key(c, "pool", c.nodePoolName()));
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted c) {
            touched.add(key(c, "pool", c.nodePoolName()));
        }
        return touched;
    }

    /** The resource a command creates (or keeps), as "cluster/kind/name". */
    static Optional<String> creates(ExecutorCommand command) {
        if (command instanceof ExecutorCommand.EnsureJob c) {
            return Optional.of(key(c, "job", c.k8sJobName()));
        } else if (command instanceof ExecutorCommand.EnsureNodePool c) {
            return Optional.of(key(c, "pool", c.nodePoolName()));
        }
        return Optional.empty();
    }

    /** The resource a command deletes, as "cluster/kind/name". */
    static Optional<String> deletes(ExecutorCommand command) {
        if (command instanceof ExecutorCommand.EnsureJobDeleted c) {
            return Optional.of(key(c, "job", c.k8sJobName()));
        } else if (command instanceof ExecutorCommand.EnsureNodePoolDeleted c) {
            return Optional.of(key(c, "pool", c.nodePoolName()));
        }
        return Optional.empty();
    }

    private static String key(ExecutorCommand command, String kind, String name) {
        return command.cluster().resourceName() + "/" + kind + "/" + name;
    }
}
