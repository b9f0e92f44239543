package io.falcon.scheduler.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.falcon.events.Json;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Checks a submitted row and turns it into a {@link ValidRequest}, or says which field is wrong and why. */
public final class RequestValidator {
    static final long MAX_TIMEOUT_SECONDS = 30L * 24 * 3600;

    private RequestValidator() {
    }

    public sealed interface Result {
    }

    public record Valid(ValidRequest request) implements Result {
    }

    public record Invalid(String field, String problem) implements Result {
        public String message() {
            return "invalid request: " + field + " " + problem;
        }
    }

    /**
     * A job id becomes part of gs://bucket/logs/JOB_ID/POD.log and of shell commands: letters, digits, '.', '_'
     * and '-', not starting with '.' (no "..", no '/', no spaces), at most 128 characters.
     */
    private static final java.util.regex.Pattern JOB_ID = java.util.regex.Pattern.compile(
            "[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

    public static Result validate(JobRequest request) {
        if (request.id() == null || !JOB_ID.matcher(request.id()).matches() || request.id().contains("..")) {
            return new Invalid("id", "'" + request.id() + "' cannot name its log path gs://<bucket>/logs/<id>/: "
                    + "use letters, digits, '.', '_' and '-' (not starting with '.', no '..'), at most 128");
        }
        if (request.actor() == null || request.actor().isBlank()) {
            return new Invalid("actor", "is required");
        }
        Optional<TpuType> tpuType = TpuType.fromWire(request.tpuType());
        if (tpuType.isEmpty()) {
            return new Invalid("tpu_type", "'" + request.tpuType() + "' is not one of v5e, v5p, v6e, v7x");
        }
        Optional<TpuTopology> topology = TpuTopology.parse(request.topology());
        if (topology.isEmpty() || !tpuType.get().accepts(topology.get())) {
            return new Invalid("topology", "'" + request.topology() + "' is not a " + tpuType.get().wireName()
                    + " slice shape; valid: " + tpuType.get().validShapes());
        }
        Optional<SupplyMode> supplyMode = Optional.empty();
        if (request.supplyMode().isPresent() && !request.supplyMode().get().isBlank()) {
            supplyMode = SupplyMode.fromWire(request.supplyMode().get());
            if (supplyMode.isEmpty()) {
                return new Invalid("supply_mode",
                        "'" + request.supplyMode().get() + "' is not one of reservation, on-demand, flex-start");
            }
        }
        if (request.timeoutSeconds().isPresent()) {
            long timeout = request.timeoutSeconds().get();
            if (timeout <= 0 || timeout > MAX_TIMEOUT_SECONDS) {
                return new Invalid("timeout_seconds", "must be between 1 and " + MAX_TIMEOUT_SECONDS + ", got " + timeout);
            }
        }
        JobSpec spec;
        try {
            spec = parseSpec(request.spec());
        } catch (FieldProblem problem) {
            return problem.invalid;
        }
        return new Valid(new ValidRequest(request.id(), request.actor(), request.name(), tpuType.get(), topology.get(),
                spec, supplyMode, request.timeoutSeconds(), request.submittedAt()));
    }

    /** Carries an Invalid out of the nested spec parsing. */
    private static final class FieldProblem extends Exception {
        private final Invalid invalid;

        FieldProblem(String field, String problem) {
            super(field + " " + problem, null, false, false);
            this.invalid = new Invalid(field, problem);
        }
    }

    private static JobSpec parseSpec(String text) throws FieldProblem {
        if (text == null || text.isBlank()) {
            throw new FieldProblem("spec", "is required");
        }
        JsonNode root;
        try {
            root = Json.mapper().readTree(text);
        } catch (IOException e) {
            throw new FieldProblem("spec", "is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null || !root.isObject()) {
            throw new FieldProblem("spec", "must be a JSON object");
        }
        for (String forbidden : List.of("privileged", "hostPath", "hostNetwork", "volumes", "securityContext")) {
            if (root.has(forbidden)) {
                throw new FieldProblem("spec." + forbidden, "is not allowed: Falcon renders the pod itself");
            }
        }
        JsonNode image = root.get("image");
        if (image == null || !image.isTextual() || image.asText().isBlank()) {
            throw new FieldProblem("spec.image", "is required and must be a non-empty string");
        }
        List<String> command = stringList(root, "command");
        if (command.isEmpty()) {
            // The pod runs the command through a shell that redirects its output to the GCS log path.
            throw new FieldProblem("spec.command", "is required: a non-empty array of strings");
        }
        return new JobSpec(image.asText(), command, stringList(root, "args"), env(root));
    }

    private static Map<String, String> env(JsonNode root) throws FieldProblem {
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode envNode = root.get("env");
        if (envNode == null || envNode.isNull()) {
            return env;
        }
        if (!envNode.isObject()) {
            throw new FieldProblem("spec.env", "must be an object of string values");
        }
        Iterator<Map.Entry<String, JsonNode>> fields = envNode.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!field.getKey().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new FieldProblem("spec.env." + field.getKey(), "is not a valid environment variable name");
            }
            if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                throw new FieldProblem("spec.env." + field.getKey(), "must be a string");
            }
            env.put(field.getKey(), field.getValue().asText());
        }
        return env;
    }

    private static List<String> stringList(JsonNode root, String field) throws FieldProblem {
        JsonNode node = root.get(field);
        List<String> values = new ArrayList<>();
        if (node == null || node.isNull()) {
            return values;
        }
        if (!node.isArray()) {
            throw new FieldProblem("spec." + field, "must be an array of strings");
        }
        for (int i = 0; i < node.size(); i++) {
            if (!node.get(i).isTextual()) {
                throw new FieldProblem("spec." + field + "[" + i + "]", "must be a string");
            }
            values.add(node.get(i).asText());
        }
        return values;
    }
}
