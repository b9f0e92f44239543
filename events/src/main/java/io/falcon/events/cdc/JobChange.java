package io.falcon.events.cdc;

import io.falcon.events.Meta;
import java.util.Optional;

/** A change of one jobs row; before is empty for inserts and snapshots, after is empty for deletes. */
public record JobChange(
        Meta meta, ChangeOp op, Optional<JobRow> before, Optional<JobRow> after, SourcePosition source) {

    public String jobId() {
        return after.or(() -> before).map(JobRow::id).orElseThrow();
    }
}
