package io.falcon.scheduler.core;

import java.util.Locale;

/**
 * What a waiting job's Message says of the jobs ahead of it ({@code falcon.scheduler.who-is-ahead}). The Message
 * reaches the job's owner, who may be another tenant than the owners of the jobs ahead.
 */
public enum WhoIsAhead {
    /** The actor and job name of the first few, as the seed's Message table shows. */
    NAMES,
    /** Names only of the jobs of the waiting job's own actor; the others counted. */
    OWN,
    /** Only how many. */
    COUNT;

    /** The setting's word (names, own, count). */
    public static WhoIsAhead of(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }
}
