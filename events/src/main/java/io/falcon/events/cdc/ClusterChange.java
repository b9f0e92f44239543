package io.falcon.events.cdc;

import io.falcon.events.Meta;
import java.util.Optional;

/** A change of one clusters row; before is empty for inserts and snapshots, after is empty for deletes. */
public record ClusterChange(
        Meta meta, ChangeOp op, Optional<ClusterRow> before, Optional<ClusterRow> after, SourcePosition source) {

    public String clusterId() {
        return after.or(() -> before).map(ClusterRow::id).orElseThrow();
    }
}
