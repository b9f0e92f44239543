package io.falcon.console.view;

import java.util.Optional;

/** One row of the clusters table, as the console shows it. */
public record ClusterInfo(
        String id,
        String name,
        String project,
        String location,
        String tpuType,
        String gcsBucket,
        Optional<String> defaultReservation,
        String status) {

    /** {@code c1 (edge-a)}, or the id alone when the name adds nothing. */
    public String label() {
        return name.isBlank() || name.equals(id) ? id : id + " (" + name + ")";
    }
}
