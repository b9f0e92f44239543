package io.falcon.console.view;

import io.falcon.events.decision.Explanation;
import io.falcon.events.fault.FaultVerdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One job's whole story: its row, every transition the console holds, the ledger told as a story, falcon explain's
 * advice, the fault verdicts about its devices and where its logs are.
 *
 * @param held whether the console holds the job's events (a job not updated for long may have been forgotten)
 */
public record JobPage(
        String jobId,
        Map<String, String> row,
        String state,
        Optional<Integer> position,
        Optional<String> estimate,
        List<Transition> transitions,
        List<StoryLine> story,
        Explanation explanation,
        List<FaultVerdict> faults,
        Optional<String> logsPath,
        boolean held) {
    public JobPage {
        row = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(row));
        transitions = List.copyOf(transitions);
        story = List.copyOf(story);
        faults = List.copyOf(faults);
    }
}
