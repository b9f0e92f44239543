package io.falcon.faults.topology;

import io.falcon.faults.core.Candidate;
import java.util.List;

/** Wrappers so lists get a named JSON shape in the changelogged stores. */
final class StoredValues {
    private StoredValues() {}

    record FaultTimes(List<Long> times) {
        FaultTimes {
            times = List.copyOf(times);
        }
    }

    record Candidates(List<Candidate> candidates) {
        Candidates {
            candidates = List.copyOf(candidates);
        }
    }
}
