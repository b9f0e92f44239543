package io.falcon.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.falcon.events.Meta;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.core.PolicyRules;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the RFC's policy YAML into an {@link IsolationPolicy} and has the core validate it: the shell's part of
 * {@link PolicyRules}, so the core needs no YAML library. Every problem found names its YAML field.
 */
public final class PolicyYaml {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private PolicyYaml() {}

    /**
     * Parses the RFC's YAML (the manuallySeparatePolicy block, optionally with Falcon's safeguards block) and
     * validates it. version and the producer's meta are given by the caller.
     */
    public static PolicyRules.Validated parse(String yaml, long version, Meta meta) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (IOException e) {
            return new PolicyRules.Invalid(List.of("not valid YAML: " + e.getMessage()));
        }
        if (root == null || !root.isObject() || !root.has(PolicyRules.ROOT)) {
            return new PolicyRules.Invalid(
                    List.of(PolicyRules.ROOT + " is required (the top-level key of the policy file)"));
        }
        JsonNode policy = root.get(PolicyRules.ROOT);
        List<String> errors = new ArrayList<>();
        Optional<Boolean> enabled = bool(policy.path("enabled"), PolicyRules.ENABLED, true, errors);
        Optional<Integer> window =
                integer(policy.path("separate").path("fault_window_hours"), PolicyRules.WINDOW, errors);
        Optional<Integer> threshold =
                integer(policy.path("separate").path("fault_threshold"), PolicyRules.THRESHOLD, errors);
        Optional<Integer> free = integer(policy.path("release").path("fault_free_hours"), PolicyRules.FREE, errors);
        JsonNode safeguards = policy.path("safeguards");
        Optional<Boolean> dryRun = bool(safeguards.path("dry_run"), PolicyRules.DRY_RUN, false, errors);
        Optional<Integer> budget =
                safeguards.path("max_isolated_devices_per_cluster").isMissingNode()
                        ? Optional.of(0)
                        : integer(safeguards.path("max_isolated_devices_per_cluster"), PolicyRules.BUDGET, errors);
        if (!errors.isEmpty()) {
            return new PolicyRules.Invalid(errors);
        }
        return PolicyRules.validate(new IsolationPolicy(
                meta,
                version,
                enabled.orElseThrow(),
                window.orElseThrow(),
                threshold.orElseThrow(),
                free.orElseThrow(),
                dryRun.orElseThrow(),
                budget.orElseThrow()));
    }

    private static Optional<Integer> integer(JsonNode node, String field, List<String> errors) {
        if (node.isMissingNode() || node.isNull()) {
            errors.add(field + " is required");
            return Optional.empty();
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            errors.add(field + " must be a whole number, got '" + node.asText() + "'");
            return Optional.empty();
        }
        return Optional.of(node.intValue());
    }

    private static Optional<Boolean> bool(JsonNode node, String field, boolean required, List<String> errors) {
        if (node.isMissingNode() || node.isNull()) {
            if (required) {
                errors.add(field + " is required");
                return Optional.empty();
            }
            return Optional.of(false);
        }
        if (!node.isBoolean()) {
            errors.add(field + " must be true or false, got '" + node.asText() + "'");
            return Optional.empty();
        }
        return Optional.of(node.booleanValue());
    }
}
