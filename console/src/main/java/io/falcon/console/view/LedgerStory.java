package io.falcon.console.view;

import io.falcon.events.decision.Decision;
import io.falcon.events.jobs.JobBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The decision ledger of one job as a story: one line per decision, oldest first, clusters named. */
public final class LedgerStory {
    private LedgerStory() {}

    public static List<StoryLine> tell(List<Decision> decisions, Map<String, String> clusterNames) {
        List<StoryLine> story = new ArrayList<>();
        for (Decision d : decisions) {
            String cluster = d.clusterId()
                    .map(c -> JobBoard.clusterLabel(c, clusterNames))
                    .orElse("");
            String pool = d.nodePoolName().orElse("");
            String supply = d.supplyMode()
                    .map(m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .orElse("");
            String headline = switch (d.kind()) {
                case CLUSTER_CHOSEN ->
                    "Placed on " + cluster
                            + d.topology().map(t -> ", queue " + t).orElse("");
                case NO_CLUSTER_ELIGIBLE -> "No cluster can take it now";
                case REROUTED -> "Moved to " + cluster;
                case POOL_REUSED -> "Got its slot: reuses node pool " + pool;
                case POOL_CREATED ->
                    "Got its slot: node pool " + pool + " created" + (supply.isEmpty() ? "" : " (" + supply + ")");
                case POOL_TAKEN_OVER -> "Got its slot: takes over node pool " + pool;
                case CAPACITY_SHORT -> "Waits for reservation capacity on " + cluster;
                case POOL_DELETED -> "Node pool " + pool + " deleted";
                case ABORTED -> "Aborted";
                case TIMED_OUT -> "Timed out";
                case FAULT_NOTED -> "A fault of its devices was judged";
                case ENDED -> "Ended";
                case RETRIED -> "Runs again";
            };
            List<String> details = new ArrayList<>();
            for (Decision.Candidate c : d.candidates()) {
                details.add(JobBoard.clusterLabel(c.clusterId(), clusterNames) + ": "
                        + c.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' ')
                        + (c.why().isEmpty() ? "" : " (" + c.why() + ")")
                        + ", status " + c.status()
                        + ", " + c.queueDepth() + " waiting"
                        + (c.idlePool() ? ", idle pool" : "")
                        + c.expectedStart().map(s -> ", expected start " + s).orElse(""));
            }
            if (d.candidatesWeighed() > d.candidates().size()) {
                details.add((d.candidatesWeighed() - d.candidates().size()) + " more clusters weighed, not recorded");
            }
            d.verdict().ifPresent(v -> details.add("verdict " + v));
            story.add(new StoryLine(d.meta().occurredAt(), headline, d.summary(), details));
        }
        return story;
    }
}
