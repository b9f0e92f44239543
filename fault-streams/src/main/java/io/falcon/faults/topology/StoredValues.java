package io.falcon.faults.topology;

import io.falcon.faults.core.Candidate;
import io.falcon.faults.core.Released;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    /**
     * Per cluster: the devices others listed in its ConfigMap, by node, and the devices Falcon released (against
     * stale listings).
     */
    record Listed(Map<String, List<String>> byOthers, List<Released> released) {
        Listed {
            Map<String, List<String>> sorted = new TreeMap<>();
            if (byOthers != null) {
                byOthers.forEach((node, devices) -> sorted.put(node, List.copyOf(devices)));
            }
            byOthers = java.util.Collections.unmodifiableMap(sorted);
            released = released == null ? List.of() : List.copyOf(released);
        }

        boolean isEmpty() {
            return byOthers.isEmpty() && released.isEmpty();
        }
    }
}
