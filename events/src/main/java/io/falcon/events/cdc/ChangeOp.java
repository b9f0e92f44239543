package io.falcon.events.cdc;

/** What happened to a row: read by the initial snapshot, created, updated or deleted. */
public enum ChangeOp {
    SNAPSHOT,
    CREATE,
    UPDATE,
    DELETE
}
