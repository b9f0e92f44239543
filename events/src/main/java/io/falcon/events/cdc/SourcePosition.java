package io.falcon.events.cdc;

/** Where a change came from in the database's binlog, for tracing and dead letters. */
public record SourcePosition(String binlogFile, long binlogPosition, long rowInEvent, long serverTimeMillis) {}
