package io.falcon.faults.core;

/**
 * The bounds of what fault-streams keeps in its changelogged stores and writes to its topics. Kafka refuses a
 * record larger than max.message.bytes (1 MB by default), and under exactly-once a refused changelog or output
 * record fails the task, which then replays the same input after every restart: isolation would stop for every
 * cluster of the task. So every value is bounded: the strings of a fault by {@link FaultIntake} (names at most
 * 256 characters, the cluster id 64, the node name 253), the collections by the counts below. An input that would
 * push a value past its bound is dead-lettered with the reason instead, and nothing already held changes.
 *
 * <p>The counts are far above what a real fleet reaches and are derived from the worst case, every name at its
 * longest and of 3-byte UTF-8 characters: each value then stays under {@link #MAX_VALUE_BYTES}, half of Kafka's
 * default (StateBoundsTest builds each value at its bounds and encodes it with the store's or the topic's codec).
 * They are constants, not settings: raised past the worst case, a bound would let the crash loop back.
 */
public final class StateBounds {
    /** What every stored value and produced record stays under, at the bounds: half of Kafka's 1 MB default. */
    public static final int MAX_VALUE_BYTES = 512 * 1024;

    /**
     * Isolated devices of one node (its isolation state, its falcon.isolation record, its entry of the cluster's
     * clusterd-manual-info-cm). A node has 4 to 16 chips; at most 32 x 8 codes, a node's state is at most about
     * 460 KB of JSON.
     */
    public static final int MAX_ISOLATED_DEVICES_PER_NODE = 32;

    /** Fault codes one device is isolated for (a device is isolated by its first code; others rarely follow). */
    public static final int MAX_CODES_PER_DEVICE = 8;

    /**
     * Isolations one cluster's budget holds back (its candidates, one per node, device and code): at most about
     * 5.5 KB each. More than a handful means the cluster is in an incident an operator has to look at anyway.
     */
    public static final int MAX_CANDIDATES_PER_CLUSTER = 64;

    /** Devices that others (operators, other tools) list in one cluster's clusterd-manual-info-cm. */
    public static final int MAX_LISTED_BY_OTHERS_PER_CLUSTER = 256;

    /**
     * Devices Falcon released in one cluster, remembered so that a listing read before the release was applied does
     * not adopt them again. Beyond this count the oldest release is forgotten (it is minutes, not weeks, that a stale
     * listing can lag): a release is never refused for it.
     */
    public static final int MAX_RELEASED_PER_CLUSTER = 128;

    /**
     * Decided rounds kept per (cluster, job, code) for judging late faults: within the allowed lateness (5 min) a
     * code has about 11 rounds of a 30 s window. A late fault that would open one more is dead-lettered; a decision
     * round that would keep more forgets the oldest (the first to expire).
     */
    public static final int MAX_ROUNDS_PER_JOB_CODE = 128;

    /** The reason of a release, shown in its verdict. */
    public static final int MAX_REASON = 1024;

    private StateBounds() {}
}
