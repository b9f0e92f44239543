package io.falcon.events.status;

/** Task status as the upper components read it (the seed's Status column). */
public enum Status {
    Pending,
    Running,
    Succeeded,
    Failed,
    Aborting,
    Aborted;

    public boolean isTerminal() {
        return this == Succeeded || this == Failed || this == Aborted;
    }
}
