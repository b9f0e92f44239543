package io.falcon.events.decision;

import io.falcon.events.jobs.JobBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code falcon explain} tells about one job (pure: the jobs row and the job's decisions from the ledger in, an
 * explanation out): where it is, why, who is ahead, and what would unblock it.
 *
 * @param where its status and place ("Pending/Waiting in queue c1/2x4, position #3")
 * @param why the decisions that put it there, latest last, one sentence each
 * @param ahead who is ahead of it (from its row's message), empty when nobody is or it does not wait in a queue
 * @param unblock what would move it on, or that nothing needs doing
 * @param ledgerNote why the ledger could not be read, if it could not (the rest then comes from the row alone)
 */
public record Explanation(
        String jobId,
        String where,
        List<String> why,
        Optional<String> ahead,
        List<String> unblock,
        List<Decision> decisions,
        Optional<String> ledgerNote) {

    private static final Pattern POSITION = Pattern.compile("#(\\d+)");
    private static final Pattern AHEAD = Pattern.compile("前面(?:至少)?有 (\\d+) 个任务(?: \\((.*)\\))?");
    private static final Pattern ESTIMATE = Pattern.compile("预计 ([0-9: -]+?) 开始");
    private static final Pattern SLICES =
            Pattern.compile("reservation_remaining_slices=(\\d+) reservation_needed_slices=(\\d+)");

    /** The queue position a Waiting Message states ("队列位置 #3,..." gives 3), if it states one. */
    public static Optional<Integer> queuePosition(String message) {
        Matcher position = POSITION.matcher(message);
        return position.find() ? Optional.of(Integer.parseInt(position.group(1))) : Optional.empty();
    }

    /** The start estimate a Waiting Message states ("预计 14:20-14:35 开始" gives "14:20-14:35"), if it states one. */
    public static Optional<String> statedEstimate(String message) {
        Matcher estimate = ESTIMATE.matcher(message);
        return estimate.find() ? Optional.of(estimate.group(1)) : Optional.empty();
    }

    public static Explanation of(Map<String, String> row, List<Decision> decisions, Optional<String> ledgerNote) {
        return of(row, decisions, ledgerNote, Map.of());
    }

    /**
     * As above, with each cluster named beside its id ({@code c1 (edge-us-east)}) where the clusters table has a name
     * for it ({@link JobBoard#clusterNames}); commands to type keep the id alone.
     */
    public static Explanation of(
            Map<String, String> row,
            List<Decision> decisions,
            Optional<String> ledgerNote,
            Map<String, String> clusterNames) {
        String id = row.getOrDefault("id", "");
        String status = row.getOrDefault("status", "");
        Optional<String> reason = nonBlank(row.get("reason"));
        String message = row.getOrDefault("message", "");
        String tpuType = row.getOrDefault("tpu_type", "");
        String topology = row.getOrDefault("topology", "");
        Optional<String> cluster = nonBlank(row.get("cluster_id"));
        Optional<Decision> placement = last(
                decisions,
                List.of(Decision.Kind.CLUSTER_CHOSEN, Decision.Kind.NO_CLUSTER_ELIGIBLE, Decision.Kind.REROUTED));
        boolean parked = placement
                        .filter(d -> d.kind() == Decision.Kind.NO_CLUSTER_ELIGIBLE)
                        .isPresent()
                || (decisions.isEmpty() && message.startsWith("no eligible cluster"));

        // 1. Where it is.
        String state = status + reason.map(r -> "/" + r).orElse("");
        String where;
        if (status.equals("Pending") && reason.filter("Waiting"::equals).isPresent() && parked) {
            where = state + ", not placed: no cluster of tpu_type " + tpuType + " can take it now";
        } else if (cluster.isPresent()) {
            Matcher position = POSITION.matcher(message);
            where = state + " on cluster " + JobBoard.clusterLabel(cluster.get(), clusterNames) + ", queue "
                    + cluster.get() + "/" + topology
                    + (reason.filter("Waiting"::equals).isPresent() && position.find()
                            ? ", position #" + position.group(1)
                            : "");
        } else {
            where = state;
        }

        // 2. Why: the ledger's story, else the row's message.
        List<String> why = new ArrayList<>();
        for (Decision d : decisions) {
            // the ledger names clusters by id; the name beside it, where the clusters table has one
            String named = d.clusterId()
                    .filter(c -> !JobBoard.clusterLabel(c, clusterNames).equals(c))
                    .map(c -> "  [" + JobBoard.clusterLabel(c, clusterNames) + "]")
                    .orElse("");
            why.add(d.meta().occurredAt() + "  " + d.kind() + "  " + d.summary() + named);
        }
        if (why.isEmpty() && !message.isEmpty()) {
            why.add(message);
        }

        // 3. Who is ahead.
        Optional<String> ahead = Optional.empty();
        Matcher aheadMatch = AHEAD.matcher(message);
        if (reason.filter("Waiting"::equals).isPresent() && aheadMatch.find()) {
            int n = Integer.parseInt(aheadMatch.group(1));
            ahead = Optional.of(
                    n == 0
                            ? "nobody: it takes the queue's slot next"
                            : n + " job(s)"
                                    + Optional.ofNullable(aheadMatch.group(2))
                                            .map(s -> ": " + s)
                                            .orElse(""));
        }

        // 4. What would unblock it.
        List<String> unblock =
                unblock(status, reason, message, tpuType, topology, cluster, placement, parked, ahead, clusterNames);
        return new Explanation(id, where, why, ahead, unblock, List.copyOf(decisions), ledgerNote);
    }

    private static List<String> unblock(
            String status,
            Optional<String> reason,
            String message,
            String tpuType,
            String topology,
            Optional<String> cluster,
            Optional<Decision> placement,
            boolean parked,
            Optional<String> ahead,
            Map<String, String> clusterNames) {
        List<String> out = new ArrayList<>();
        switch (status) {
            case "Succeeded", "Failed", "Aborted" ->
                out.add("nothing: the job has ended (" + status
                        + reason.map(r -> "/" + r).orElse("") + (message.isEmpty() ? "" : ": " + message) + ")");
            case "Running" -> out.add("nothing: its pods run");
            case "Aborting" -> out.add("nothing: it is being aborted (its Kubernetes Job and node pool are deleted)");
            case "Pending" -> {
                String r = reason.orElse("");
                if (r.equals("Waiting") && parked) {
                    List<Decision.Candidate> candidates =
                            placement.map(Decision::candidates).orElse(List.of());
                    if (candidates.isEmpty()) {
                        out.add("no cluster has tpu_type " + tpuType + ": add one to the clusters table"
                                + " (falcon clusters add ... --tpu-type " + tpuType + ")");
                    }
                    for (Decision.Candidate c : candidates) {
                        String named = JobBoard.clusterLabel(c.clusterId(), clusterNames);
                        switch (c.outcome()) {
                            case NOT_ACTIVE ->
                                out.add("cluster " + named + " is " + c.status()
                                        + ": the job can start there once its status is active"
                                        + " (falcon clusters set-status " + c.clusterId() + " active)");
                            case NO_DEFAULT_RESERVATION ->
                                out.add("cluster " + named
                                        + " has no default_reservation: setting supply_mode=flex-start (or on-demand)"
                                        + " would let it start on " + c.clusterId());
                            case AVOIDED ->
                                out.add("cluster " + named + " keeps refusing work (" + c.why()
                                        + "): jobs go there again after the cool-down; fix what GKE or Kubernetes"
                                        + " refused there (quota, IAM, an admission policy, an upgrade)");
                            default -> {}
                        }
                    }
                } else if (r.equals("Waiting")) {
                    out.add(ahead.filter(a -> !a.startsWith("nobody"))
                            .map(a -> "it starts when the " + a.replaceFirst(":.*", "")
                                    + " ahead have taken the slots of queue " + cluster.orElse("?") + "/" + topology
                                    + " in turn (falcon.scheduler.acquirers-per-queue jobs acquire at once; a higher"
                                    + " priority or another active " + tpuType + " cluster would start it sooner)")
                            .orElse("nothing: it is next; a slot frees when an acquiring job's pods run"));
                } else if (r.equals("ClusterBusy")) {
                    Matcher slices = SLICES.matcher(message);
                    String shortBy = slices.find()
                            ? "has " + slices.group(1) + " of the " + slices.group(2)
                                    + " TPU VMs (hosts of the slice) this job needs"
                            : "lacks the capacity this job needs";
                    out.add("the reservation of cluster "
                            + cluster.map(id -> JobBoard.clusterLabel(id, clusterNames))
                                    .orElse("?")
                            + " " + shortBy
                            + ": the job starts when capacity frees up; supply_mode=flex-start or on-demand would"
                            + " not need the reservation");
                } else if (r.equals("Provisioning")) {
                    out.add("nothing: its node pool is being created; the provisioning timeout bounds the wait (then"
                            + " it ends Failed/NodePoolTimeout)");
                } else if (r.equals("WaitingForNode")) {
                    // seed section 4: GKE keeps retrying the nodes, and no deadline ends the wait
                    out.add("GKE bringing up its node pool's nodes (a flex-start pool gets them when capacity is"
                            + " found for the job's pending pods): no timeout ends this wait and its execution"
                            + " timeout has not started; abort the job to stop waiting, or submit it with"
                            + " supply_mode=reservation or on-demand");
                } else if (r.equals("Dispatching")) {
                    out.add("nothing: its Kubernetes Job is being submitted and its pods scheduled");
                } else if (r.equals("Retrying")) {
                    out.add("nothing: the fleet ended its last attempt and it runs again by itself once that"
                            + " attempt's Kubernetes Job is gone (the Message says which attempt and from when);"
                            + " abort it to stop");
                } else {
                    out.add("nothing known to do (" + r + ")");
                }
            }
            default -> out.add("unknown status '" + status + "'");
        }
        return out;
    }

    private static Optional<Decision> last(List<Decision> decisions, List<Decision.Kind> kinds) {
        for (int i = decisions.size() - 1; i >= 0; i--) {
            if (kinds.contains(decisions.get(i).kind())) {
                return Optional.of(decisions.get(i));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() || s.equals("NULL") ? Optional.empty() : Optional.of(s);
    }

    /** The explanation for a person. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("job " + jobId + ": " + where);
        ledgerNote.ifPresent(n -> out.add("(decision ledger not read: " + n + ")"));
        out.add("why:");
        why.forEach(w -> out.add("  " + w));
        ahead.ifPresent(a -> out.add("ahead: " + a));
        out.add("what would unblock it:");
        unblock.forEach(u -> out.add("  - " + u));
        return out;
    }

    /** For --json: a stable shape (the decisions as on the topic). */
    public Map<String, Object> json() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("jobId", jobId);
        m.put("where", where);
        m.put("why", why);
        ahead.ifPresent(a -> m.put("ahead", a));
        m.put("unblock", unblock);
        m.put("decisions", decisions);
        ledgerNote.ifPresent(n -> m.put("ledgerNote", n));
        return m;
    }
}
