package io.falcon.console.view;

import io.falcon.events.decision.Explanation;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.StartEstimate;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Builds the pages from what the database and the topics say (pure: everything comes in, a page goes out). */
public final class Views {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("MM-dd HH:mm");

    private Views() {}

    public static FleetPage fleet(
            List<ClusterInfo> clusters,
            Map<String, List<PoolSpan>> poolsByCluster,
            Map<String, NodeIsolation> isolations,
            Map<String, Optional<String>> capacityNotes,
            Map<String, ClusterFacts> facts,
            int jobsHeld,
            Instant now) {
        List<FleetPage.Card> cards = new ArrayList<>();
        int isolatedTotal = 0;
        for (ClusterInfo cluster : clusters) {
            List<PoolSpan> active = poolsByCluster.getOrDefault(cluster.id(), List.of()).stream()
                    .filter(PoolSpan::active)
                    .toList();
            Map<String, Integer> groups = new TreeMap<>();
            for (PoolSpan p : active) {
                groups.merge(p.topology() + "\t" + p.supplyMode(), 1, Integer::sum);
            }
            List<FleetPage.PoolGroup> poolGroups = groups.entrySet().stream()
                    .map(e -> {
                        String[] key = e.getKey().split("\t", 2);
                        return new FleetPage.PoolGroup(key[0], key[1], e.getValue());
                    })
                    .toList();
            int reservationPools = (int) active.stream()
                    .filter(p -> p.supplyMode().equals("reservation"))
                    .count();
            List<FleetPage.IsolatedDevice> isolated = new ArrayList<>();
            isolations.forEach((key, node) -> {
                String[] clusterNode = NodeIsolation.splitKey(key);
                if (!clusterNode[0].equals(cluster.id())) {
                    return;
                }
                node.detail()
                        .forEach((device, entries) -> isolated.add(new FleetPage.IsolatedDevice(
                                clusterNode[1],
                                device,
                                String.join(
                                        ", ",
                                        entries.stream()
                                                .map(NodeIsolation.DeviceIsolation::faultCode)
                                                .toList()),
                                Instant.ofEpochMilli(entries.stream()
                                        .mapToLong(NodeIsolation.DeviceIsolation::lastSeparateTime)
                                        .max()
                                        .orElse(0)))));
                node.total().stream()
                        .filter(device -> !node.detail().containsKey(device))
                        .forEach(device ->
                                isolated.add(new FleetPage.IsolatedDevice(clusterNode[1], device, "", Instant.EPOCH)));
            });
            isolated.sort(Comparator.comparing(FleetPage.IsolatedDevice::node)
                    .thenComparing(FleetPage.IsolatedDevice::device));
            isolatedTotal += isolated.size();
            ClusterFacts known = facts.getOrDefault(cluster.id(), ClusterFacts.NONE);
            cards.add(new FleetPage.Card(
                    cluster,
                    active.size(),
                    reservationPools,
                    capacityNotes.getOrDefault(cluster.id(), Optional.empty()),
                    reservation(cluster, known, reservationPools),
                    health(known),
                    poolGroups,
                    isolated));
        }
        return new FleetPage(cards, isolatedTotal, jobsHeld, now);
    }

    private static final DateTimeFormatter UTC_CLOCK =
            DateTimeFormatter.ofPattern("MM-dd HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

    static FleetPage.Reservation reservation(ClusterInfo cluster, ClusterFacts facts, int falconPools) {
        if (cluster.defaultReservation().isEmpty()) {
            return new FleetPage.Reservation("none", "none", "none");
        }
        String name = cluster.defaultReservation().get();
        Optional<ClusterFacts.ReservationRead> read = facts.reservationsRead().stream()
                .filter(r -> sameReservation(r.reservation(), name))
                .max(java.util.Comparator.comparing(ClusterFacts.ReservationRead::at));
        Optional<ClusterFacts.Shortage> shortage =
                facts.shortage().filter(s -> s.reservation().isEmpty() || sameReservation(s.reservation(), name));
        String unknown = "unknown (until Falcon reads the reservation: before it creates a pool on it)";
        String count = read.map(r -> r.count() + " TPU VM(s) at " + UTC_CLOCK.format(r.at()))
                .orElse(unknown);
        String inUse = read.map(r -> r.inUse() + " TPU VM(s) (all tenants) at " + UTC_CLOCK.format(r.at()))
                        .orElse(unknown)
                + "; " + falconPools + " of Falcon's node pools";
        // The latest word wins: a shortage GKE reported after the read (its error names what is available) is newer.
        Optional<ClusterFacts.Shortage> newerShortage = shortage.filter(
                s -> read.isEmpty() || !s.at().isBefore(read.get().at()));
        String remaining = newerShortage
                .map(s -> s.remaining() + " TPU VM(s) at " + UTC_CLOCK.format(s.at()) + " (a pool needed " + s.needed()
                        + ")")
                .or(() -> read.map(r -> r.remaining() + " TPU VM(s) at " + UTC_CLOCK.format(r.at())))
                .orElse(unknown);
        return new FleetPage.Reservation(count, inUse, remaining);
    }

    /** The same reservation, whether named bare or by its resource path (projects/P/zones/Z/reservations/N). */
    private static boolean sameReservation(String named, String reservation) {
        return named.equals(reservation) || named.endsWith("/" + reservation) || reservation.endsWith("/" + named);
    }

    static FleetPage.Health health(ClusterFacts facts) {
        Optional<ClusterFacts.Weighed> weighed = facts.weighed();
        if (weighed.filter(w -> w.outcome().equals("AVOIDED")).isPresent()) {
            return new FleetPage.Health(
                    "avoided",
                    weighed.get().why() + " (placement at "
                            + UTC_CLOCK.format(weighed.get().at()) + ")");
        }
        if (!facts.refusalsSinceLastSuccess().isEmpty()) {
            ClusterFacts.Refusal last = facts.refusalsSinceLastSuccess()
                    .get(facts.refusalsSinceLastSuccess().size() - 1);
            int n = facts.refusalsSinceLastSuccess().size();
            return new FleetPage.Health(
                    "refusing",
                    n + " refusal(s) since work last went through"
                            + (n >= REFUSALS_SHOWN ? " (at least)" : "") + "; the last at "
                            + UTC_CLOCK.format(last.at())
                            + ": " + last.what());
        }
        if (weighed.filter(w -> w.outcome().equals("NOT_ACTIVE")).isPresent()) {
            return new FleetPage.Health("not-active", weighed.get().why());
        }
        if (facts.lastSuccess().isPresent()) {
            return new FleetPage.Health(
                    "healthy",
                    "work went through at "
                            + UTC_CLOCK.format(facts.lastSuccess().get()));
        }
        if (weighed.isPresent()) {
            return new FleetPage.Health(
                    "healthy",
                    "weighed for a job at " + UTC_CLOCK.format(weighed.get().at()) + ", nothing refused since");
        }
        return new FleetPage.Health("unknown", "no work placed or run there since the console started reading");
    }

    private static final int REFUSALS_SHOWN = ConsoleIndex.REFUSALS_PER_CLUSTER;

    /**
     * A job in a queue: the position its Message states, and its start estimate (the latest task-status estimate the
     * console holds, else the one its Message states).
     */
    public static QueuePage.Entry entry(ListedJob job, Optional<JobHistory> history, ZoneId zone) {
        if (!job.status().equals("Pending")
                || job.reason().filter("Waiting"::equals).isEmpty()) {
            return new QueuePage.Entry(job, Optional.empty(), Optional.empty());
        }
        Optional<String> estimate = history.flatMap(JobHistory::latest)
                .filter(Transition::waiting)
                .flatMap(Transition::estimate)
                .map(e -> estimate(e, zone))
                .or(() -> Explanation.statedEstimate(job.message()));
        return new QueuePage.Entry(job, Explanation.queuePosition(job.message()), estimate);
    }

    /** A queue's waiting jobs: the first in pick order, then the rest of a submission-order page. */
    public record Waiting(List<QueuePage.Entry> pickOrder, List<QueuePage.Entry> submissionOrder) {}

    /**
     * The waiting jobs of a queue page. {@code pickOrder} is what the topics tell (job id to position, in pick order);
     * {@code rows} are those jobs' rows now: a job is listed in pick order only while its row still waits in this
     * queue (the table is the truth; the topics may lag it). Those jobs are left out of the submission-order page, so
     * that no job is listed twice; {@code firstPage}: the pick-order part is shown on the first page only.
     */
    public static Waiting waiting(
            String clusterId,
            String topology,
            Map<String, Integer> pickOrder,
            List<ListedJob> rows,
            List<ListedJob> submissionPage,
            boolean firstPage,
            Map<String, JobHistory> histories,
            ZoneId zone) {
        Map<String, ListedJob> byId = new java.util.HashMap<>();
        rows.forEach(r -> byId.put(r.id(), r));
        List<QueuePage.Entry> picked = new ArrayList<>();
        java.util.Set<String> inPickOrder = new java.util.HashSet<>();
        pickOrder.forEach((id, position) -> {
            ListedJob row = byId.get(id);
            if (row != null
                    && row.status().equals("Pending")
                    && row.reason().filter("Waiting"::equals).isPresent()
                    && row.clusterId().filter(clusterId::equals).isPresent()
                    && row.topology().equals(topology)) {
                inPickOrder.add(id);
                QueuePage.Entry entry = entry(row, Optional.ofNullable(histories.get(id)), zone);
                picked.add(new QueuePage.Entry(row, Optional.of(position), entry.estimate()));
            }
        });
        List<QueuePage.Entry> rest = submissionPage.stream()
                .filter(j -> !inPickOrder.contains(j.id()))
                .map(j -> entry(j, Optional.ofNullable(histories.get(j.id())), zone))
                .toList();
        return new Waiting(firstPage ? picked : List.of(), rest);
    }

    public static String estimate(StartEstimate e, ZoneId zone) {
        return CLOCK.format(e.earliest().atZone(zone)) + " – "
                + CLOCK.format(e.latest().atZone(zone)) + " " + zone.getId();
    }

    /**
     * The job's page from its row (every column, {@code JobBoard.columns}), what the console holds of its events, and
     * the clusters (names, and the bucket its logs go to).
     */
    public static JobPage job(
            Map<String, String> row,
            Optional<JobHistory> history,
            Map<String, ClusterInfo> clusters,
            int eventsPerJob,
            ZoneId zone) {
        String id = row.getOrDefault("id", "");
        JobHistory held = history.orElse(JobHistory.EMPTY);
        Map<String, String> names = new TreeMap<>();
        clusters.forEach((cid, c) -> names.put(cid, c.name()));
        Optional<String> ledgerNote = history.isPresent()
                ? Optional.empty()
                : Optional.of("the console holds no events of this job (not seen since it started, or among the"
                        + " least recently updated beyond its falcon.console.jobs-tracked)");
        Explanation explanation = Explanation.of(row, held.decisions(), ledgerNote, names);
        String message = row.getOrDefault("message", "");
        String status = row.getOrDefault("status", "");
        String reason = row.getOrDefault("reason", "");
        boolean waiting = status.equals("Pending") && reason.equals("Waiting");
        Optional<String> estimate = waiting
                ? held.latest()
                        .filter(Transition::waiting)
                        .flatMap(Transition::estimate)
                        .map(e -> estimate(e, zone))
                        .or(() -> Explanation.statedEstimate(message))
                : Optional.empty();
        Optional<String> logs = Optional.ofNullable(row.get("cluster_id"))
                .map(clusters::get)
                .map(c -> "gs://" + c.gcsBucket() + "/logs/" + id + "/");
        return new JobPage(
                id,
                row,
                status + (reason.isEmpty() ? "" : "/" + reason),
                waiting ? Explanation.queuePosition(message) : Optional.empty(),
                estimate,
                held.transitions(),
                LedgerStory.tell(held.decisions(), names),
                explanation,
                held.faults(),
                logs,
                history.isPresent());
    }
}
