package io.falcon.events.fault;

import io.falcon.events.Meta;

/**
 * The manual-isolation policy in force (the RFC's manuallySeparatePolicy plus Falcon's safeguards), published
 * to the compacted falcon.isolation-policy under key {@link #KEY}. faultFreeHours -1 means never auto-release;
 * maxIsolatedDevicesPerCluster 0 means no budget. version identifies the policy in every verdict's evidence.
 */
public record IsolationPolicy(
        Meta meta,
        long version,
        boolean enabled,
        int faultWindowHours,
        int faultThreshold,
        int faultFreeHours,
        boolean dryRun,
        int maxIsolatedDevicesPerCluster) {

    public static final String KEY = "policy";
    public static final int NEVER_RELEASE = -1;

    public long faultWindowMs() {
        return faultWindowHours * 3_600_000L;
    }

    public boolean autoRelease() {
        return faultFreeHours != NEVER_RELEASE;
    }

    public long faultFreeMs() {
        return faultFreeHours * 3_600_000L;
    }

    public boolean hasBudget() {
        return maxIsolatedDevicesPerCluster > 0;
    }
}
