package io.falcon.console.view;

import java.util.Optional;

/**
 * What an event changed, for the pages that show it: a job's page, its cluster's queues and timeline, the fleet
 * page (pools and isolated devices).
 */
public record Change(Optional<String> jobId, Optional<String> clusterId, boolean fleet) {
    /** The live-update topics a page subscribes to: "job:ID", "cluster:ID", "fleet". */
    public java.util.List<String> topics() {
        java.util.List<String> out = new java.util.ArrayList<>();
        jobId.ifPresent(j -> out.add("job:" + j));
        clusterId.ifPresent(c -> out.add("cluster:" + c));
        if (fleet) {
            out.add("fleet");
        }
        return out;
    }
}
