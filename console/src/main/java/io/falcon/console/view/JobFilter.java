package io.falcon.console.view;

import java.util.Optional;

/** What the job search asks for: each present field must match exactly. */
public record JobFilter(
        Optional<String> id, Optional<String> actor, Optional<String> status, Optional<String> clusterId) {
    public static final JobFilter NONE =
            new JobFilter(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    /** Blank fields are absent (an empty search box). */
    public static JobFilter of(String id, String actor, String status, String clusterId) {
        return new JobFilter(present(id), present(actor), present(status), present(clusterId));
    }

    private static Optional<String> present(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }
}
