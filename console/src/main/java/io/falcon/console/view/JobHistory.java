package io.falcon.console.view;

import io.falcon.events.decision.Decision;
import io.falcon.events.fault.FaultVerdict;
import java.util.List;
import java.util.Optional;

/**
 * What the console holds in memory about one job: its latest transitions, decisions and fault verdicts, oldest first,
 * each list capped (the oldest go first).
 */
public record JobHistory(List<Transition> transitions, List<Decision> decisions, List<FaultVerdict> faults) {
    public static final JobHistory EMPTY = new JobHistory(List.of(), List.of(), List.of());

    public JobHistory {
        transitions = List.copyOf(transitions);
        decisions = List.copyOf(decisions);
        faults = List.copyOf(faults);
    }

    public Optional<Transition> latest() {
        return transitions.isEmpty() ? Optional.empty() : Optional.of(transitions.get(transitions.size() - 1));
    }
}
