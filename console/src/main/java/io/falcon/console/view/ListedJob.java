package io.falcon.console.view;

import java.time.LocalDateTime;
import java.util.Optional;

/** One jobs row in a list: the columns a queue or a search shows. */
public record ListedJob(
        String id,
        String actor,
        String name,
        String tpuType,
        String topology,
        String status,
        Optional<String> reason,
        String message,
        Optional<String> clusterId,
        Optional<Integer> priority,
        LocalDateTime createdAt) {

    public String state() {
        return status + reason.map(r -> "/" + r).orElse("");
    }
}
