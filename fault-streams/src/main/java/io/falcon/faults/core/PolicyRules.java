package io.falcon.faults.core;

import io.falcon.events.Meta;
import io.falcon.events.fault.IsolationPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The RFC's manuallySeparatePolicy: its bounds and their validation (the YAML is read by the shell,
 * {@code io.falcon.faults.PolicyYaml}). Error messages name the YAML field, so an operator can fix the file; an
 * invalid policy is never applied.
 */
public final class PolicyRules {
    public static final int MIN_WINDOW_HOURS = 1;
    public static final int MAX_WINDOW_HOURS = 720;
    public static final int MIN_THRESHOLD = 1;
    public static final int MAX_THRESHOLD = 50;
    public static final int MIN_FREE_HOURS = 1;
    public static final int MAX_FREE_HOURS = 240;
    public static final int MAX_BUDGET = 1_000_000;

    public static final String ROOT = "manuallySeparatePolicy";
    public static final String ENABLED = ROOT + ".enabled";
    public static final String WINDOW = ROOT + ".separate.fault_window_hours";
    public static final String THRESHOLD = ROOT + ".separate.fault_threshold";
    public static final String FREE = ROOT + ".release.fault_free_hours";
    public static final String DRY_RUN = ROOT + ".safeguards.dry_run";
    public static final String BUDGET = ROOT + ".safeguards.max_isolated_devices_per_cluster";

    private PolicyRules() {}

    /** A parsed and validated policy, or every problem found. */
    public sealed interface Validated {}

    public record Valid(IsolationPolicy policy) implements Validated {}

    public record Invalid(List<String> errors) implements Validated {
        public Invalid {
            errors = List.copyOf(errors);
        }

        public String message() {
            return "invalid isolation policy: " + String.join("; ", errors);
        }
    }

    /** The RFC's example configuration, in force until a policy is published. */
    public static IsolationPolicy defaultPolicy() {
        return new IsolationPolicy(
                new Meta("default-policy", Instant.EPOCH, "fault-streams"),
                0,
                true,
                24,
                3,
                IsolationPolicy.NEVER_RELEASE,
                false,
                0);
    }

    /** Checks the RFC's bounds (and the safeguards'); empty when the policy may be applied. */
    public static List<String> problems(IsolationPolicy p) {
        List<String> errors = new ArrayList<>();
        if (p.faultWindowHours() < MIN_WINDOW_HOURS || p.faultWindowHours() > MAX_WINDOW_HOURS) {
            errors.add(WINDOW + " must be between " + MIN_WINDOW_HOURS + " and " + MAX_WINDOW_HOURS + ", got "
                    + p.faultWindowHours());
        }
        if (p.faultThreshold() < MIN_THRESHOLD || p.faultThreshold() > MAX_THRESHOLD) {
            errors.add(THRESHOLD + " must be between " + MIN_THRESHOLD + " and " + MAX_THRESHOLD + ", got "
                    + p.faultThreshold());
        }
        if (p.faultFreeHours() != IsolationPolicy.NEVER_RELEASE
                && (p.faultFreeHours() < MIN_FREE_HOURS || p.faultFreeHours() > MAX_FREE_HOURS)) {
            errors.add(FREE + " must be between " + MIN_FREE_HOURS + " and " + MAX_FREE_HOURS
                    + " or -1 (never release), got " + p.faultFreeHours());
        }
        if (p.maxIsolatedDevicesPerCluster() < 0 || p.maxIsolatedDevicesPerCluster() > MAX_BUDGET) {
            errors.add(BUDGET + " must be between 0 (no budget) and " + MAX_BUDGET + ", got "
                    + p.maxIsolatedDevicesPerCluster());
        }
        return errors;
    }

    public static Validated validate(IsolationPolicy p) {
        List<String> errors = problems(p);
        return errors.isEmpty() ? new Valid(p) : new Invalid(errors);
    }
}
