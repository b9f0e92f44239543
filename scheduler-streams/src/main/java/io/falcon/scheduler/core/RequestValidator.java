package io.falcon.scheduler.core;

import io.falcon.events.JsonTree;
import io.falcon.events.PriorityLimits;
import io.falcon.events.ResourceNames;
import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Checks a submitted row and turns it into a {@link ValidRequest}, or says which field is wrong and why. */
public final class RequestValidator {
    static final long MAX_TIMEOUT_SECONDS = 30L * 24 * 3600;
    /** The range no actor's priorities go beyond ({@link PriorityLimits#MIN}..{@link PriorityLimits#MAX}). */
    public static final int MAX_PRIORITY = PriorityLimits.MAX;

    public static final int MIN_PRIORITY = PriorityLimits.MIN;

    private RequestValidator() {}

    public sealed interface Result {}

    public record Valid(ValidRequest request) implements Result {}

    public record Invalid(String field, String problem) implements Result {
        public String message() {
            return "invalid request: " + field + " " + problem;
        }
    }

    /** As {@link #validate(JobRequest, Admission)} under the default admission bounds (tools, tests). */
    public static Result validate(JobRequest request) {
        return validate(request, Admission.defaults());
    }

    public static Result validate(JobRequest request, Admission admission) {
        if (!ResourceNames.isUsableJobId(request.id())) {
            return new Invalid(
                    "id",
                    "'" + request.id() + "' cannot name its log path gs://<bucket>/logs/<id>/: "
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
            return new Invalid(
                    "topology",
                    "'" + request.topology() + "' is not a " + tpuType.get().wireName() + " slice shape; valid: "
                            + tpuType.get().validShapes());
        }
        Optional<SupplyMode> supplyMode = Optional.empty();
        if (request.supplyMode().isPresent() && !request.supplyMode().get().isBlank()) {
            supplyMode = SupplyMode.fromWire(request.supplyMode().get());
            if (supplyMode.isEmpty()) {
                return new Invalid(
                        "supply_mode",
                        "'" + request.supplyMode().get() + "' is not one of reservation, on-demand, flex-start");
            }
        }
        if (request.timeoutSeconds().isPresent()) {
            long timeout = request.timeoutSeconds().get();
            if (timeout <= 0 || timeout > MAX_TIMEOUT_SECONDS) {
                return new Invalid(
                        "timeout_seconds", "must be between 1 and " + MAX_TIMEOUT_SECONDS + ", got " + timeout);
            }
        }
        if (request.priority().isPresent()) {
            long column = request.priority().get();
            if (column < MIN_PRIORITY || column > MAX_PRIORITY) {
                return new Invalid(
                        "priority", "must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", got " + column);
            }
        }
        if (request.maxRetries().isPresent()) {
            long column = request.maxRetries().get();
            if (column < 0 || column > RetryPolicy.MAX_RETRIES) {
                return new Invalid(
                        "max_retries", "must be between 0 and " + RetryPolicy.MAX_RETRIES + ", got " + column);
            }
        }
        int specBytes =
                request.spec() == null ? 0 : request.spec().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (specBytes > admission.maxSpecBytes()) {
            return new Invalid(
                    "spec",
                    "is " + specBytes + " bytes; at most " + admission.maxSpecBytes()
                            + " are taken (falcon.scheduler.max-spec-bytes): keep large inputs in storage and pass"
                            + " their location");
        }
        JobSpec spec;
        Optional<Integer> specPriority;
        Optional<SupplyMode> specSupplyMode;
        RetryPolicy retry;
        try {
            JsonTree.JsonObject root = specObject(request.spec());
            spec = parseSpec(root);
            specPriority = specPriority(root);
            specSupplyMode = specSupplyMode(root);
            retry = specRetry(root);
        } catch (FieldProblem problem) {
            return problem.invalid;
        }
        // Seed section 5 names TaskSpec.supply_mode: the spec may carry it, as it may the priority. The column wins
        // when it is set; a malformed spec.supply_mode is refused even then, so that it never lies unnoticed.
        if (supplyMode.isEmpty()) {
            supplyMode = specSupplyMode;
        }
        // The column wins when it is set: it is the table's own field, while spec.priority is for upper components
        // that cannot add a column. A malformed spec.priority is refused even then, so that it never lies unnoticed.
        int priority = request.priority().map(Math::toIntExact).orElse(specPriority.orElse(0));
        PriorityLimits.Range allowed = admission.priorityLimits().of(request.actor());
        if (!allowed.contains(priority)) {
            return new Invalid(
                    request.priority().isPresent() ? "priority" : "spec.priority",
                    "must be between " + allowed.min() + " and " + allowed.max() + " for actor '" + request.actor()
                            + "' (falcon.scheduler.priority-limits), got " + priority);
        }
        return new Valid(new ValidRequest(
                request.id(),
                request.actor(),
                request.name(),
                tpuType.get(),
                topology.get(),
                spec,
                supplyMode,
                request.timeoutSeconds(),
                request.submittedAt(),
                priority,
                request.createdAt(),
                request.commitOrder(),
                // the column wins when it is set, as for priority; a malformed spec.retry is refused even then
                request.maxRetries()
                        .map(column -> new RetryPolicy(Optional.of(Math.toIntExact(column)), retry.onExitCodes()))
                        .orElse(retry)));
    }

    /** Carries an Invalid out of the nested spec parsing. */
    private static final class FieldProblem extends Exception {
        private final Invalid invalid;

        FieldProblem(String field, String problem) {
            super(field + " " + problem, null, false, false);
            this.invalid = new Invalid(field, problem);
        }
    }

    private static JsonTree.JsonObject specObject(String text) throws FieldProblem {
        if (text == null || text.isBlank()) {
            throw new FieldProblem("spec", "is required");
        }
        JsonTree.Parsed parsed = JsonTree.parse(text);
        if (parsed instanceof JsonTree.Malformed malformed) {
            throw new FieldProblem("spec", "is not valid JSON: " + malformed.reason());
        }
        JsonTree root = ((JsonTree.Document) parsed).root();
        if (!(root instanceof JsonTree.JsonObject spec)) {
            throw new FieldProblem("spec", "must be a JSON object");
        }
        return spec;
    }

    /** spec.supply_mode: absent, null or empty means not given; otherwise one of the three modes. */
    private static Optional<SupplyMode> specSupplyMode(JsonTree.JsonObject spec) throws FieldProblem {
        JsonTree node = spec.members().getOrDefault("supply_mode", new JsonTree.JsonNull());
        if (node instanceof JsonTree.JsonNull) {
            return Optional.empty();
        }
        if (!(node instanceof JsonTree.JsonString string)) {
            throw new FieldProblem(
                    "spec.supply_mode", "must be one of reservation, on-demand, flex-start, got " + shown(node));
        }
        if (string.value().isBlank()) {
            return Optional.empty();
        }
        Optional<SupplyMode> mode = SupplyMode.fromWire(string.value());
        if (mode.isEmpty()) {
            throw new FieldProblem(
                    "spec.supply_mode", "'" + string.value() + "' is not one of reservation, on-demand, flex-start");
        }
        return mode;
    }

    /**
     * spec.retry: absent or null means not given; otherwise an object with {@code max_retries} (a whole number from 0
     * to {@link RetryPolicy#MAX_RETRIES}) and {@code on_exit_codes} (at most {@link RetryPolicy#MAX_EXIT_CODES} exit
     * codes from 1 to 255), each optional. Any other member is refused, so that a misspelt one never lies unnoticed.
     */
    private static RetryPolicy specRetry(JsonTree.JsonObject spec) throws FieldProblem {
        JsonTree node = spec.members().getOrDefault("retry", new JsonTree.JsonNull());
        if (node instanceof JsonTree.JsonNull) {
            return RetryPolicy.UNSTATED;
        }
        if (!(node instanceof JsonTree.JsonObject retry)) {
            throw new FieldProblem("spec.retry", "must be an object such as {\"max_retries\": 2}, got " + shown(node));
        }
        for (String member : retry.members().keySet()) {
            if (!member.equals("max_retries") && !member.equals("on_exit_codes")) {
                throw new FieldProblem(
                        "spec.retry." + member, "is not a member of spec.retry (max_retries, on_exit_codes)");
            }
        }
        Optional<Integer> maxRetries = Optional.empty();
        JsonTree max = retry.members().getOrDefault("max_retries", new JsonTree.JsonNull());
        if (!(max instanceof JsonTree.JsonNull)) {
            String problem = "must be a whole number between 0 and " + RetryPolicy.MAX_RETRIES;
            if (!(max instanceof JsonTree.JsonLiteral literal)
                    || !literal.text().matches("[0-9]{1,9}")) {
                throw new FieldProblem("spec.retry.max_retries", problem + ", got " + shown(max));
            }
            int value = Integer.parseInt(literal.text());
            if (value > RetryPolicy.MAX_RETRIES) {
                throw new FieldProblem("spec.retry.max_retries", problem + ", got " + value);
            }
            maxRetries = Optional.of(value);
        }
        java.util.Set<Integer> codes = new java.util.TreeSet<>();
        JsonTree listed = retry.members().getOrDefault("on_exit_codes", new JsonTree.JsonNull());
        if (!(listed instanceof JsonTree.JsonNull)) {
            if (!(listed instanceof JsonTree.JsonArray array)) {
                throw new FieldProblem(
                        "spec.retry.on_exit_codes", "must be an array of exit codes, got " + shown(listed));
            }
            if (array.elements().size() > RetryPolicy.MAX_EXIT_CODES) {
                throw new FieldProblem(
                        "spec.retry.on_exit_codes",
                        "names " + array.elements().size() + " exit codes; at most " + RetryPolicy.MAX_EXIT_CODES);
            }
            for (JsonTree item : array.elements()) {
                if (!(item instanceof JsonTree.JsonLiteral literal)
                        || !literal.text().matches("[0-9]{1,3}")) {
                    throw new FieldProblem(
                            "spec.retry.on_exit_codes", "must hold exit codes from 1 to 255, got " + shown(item));
                }
                int code = Integer.parseInt(literal.text());
                if (code < 1 || code > 255) {
                    throw new FieldProblem(
                            "spec.retry.on_exit_codes", "must hold exit codes from 1 to 255, got " + code);
                }
                codes.add(code);
            }
        }
        return new RetryPolicy(maxRetries, codes);
    }

    /** spec.priority: absent or null means not given; otherwise a whole number within the bounds. */
    private static Optional<Integer> specPriority(JsonTree.JsonObject spec) throws FieldProblem {
        JsonTree node = spec.members().getOrDefault("priority", new JsonTree.JsonNull());
        if (node instanceof JsonTree.JsonNull) {
            return Optional.empty();
        }
        String problem = "must be a whole number between " + MIN_PRIORITY + " and " + MAX_PRIORITY;
        if (!(node instanceof JsonTree.JsonLiteral literal) || !literal.text().matches("-?[0-9]{1,9}")) {
            throw new FieldProblem("spec.priority", problem + ", got " + shown(node));
        }
        int value = Integer.parseInt(literal.text());
        if (value < MIN_PRIORITY || value > MAX_PRIORITY) {
            throw new FieldProblem("spec.priority", problem + ", got " + value);
        }
        return Optional.of(value);
    }

    private static String shown(JsonTree node) {
        if (node instanceof JsonTree.JsonLiteral literal) {
            return literal.text();
        }
        if (node instanceof JsonTree.JsonString string) {
            return "the string \"" + string.value() + "\"";
        }
        return node instanceof JsonTree.JsonArray ? "an array" : "an object";
    }

    private static JobSpec parseSpec(JsonTree.JsonObject spec) throws FieldProblem {
        Map<String, JsonTree> members = spec.members();
        for (String forbidden : List.of("privileged", "hostPath", "hostNetwork", "volumes", "securityContext")) {
            if (members.containsKey(forbidden)) {
                throw new FieldProblem("spec." + forbidden, "is not allowed: Falcon renders the pod itself");
            }
        }
        if (!(members.get("image") instanceof JsonTree.JsonString image)
                || image.value().isBlank()) {
            throw new FieldProblem("spec.image", "is required and must be a non-empty string");
        }
        // Kubernetes refuses such an image only when the Job is submitted (JobSubmitFailed, after a node pool was
        // made for it): refused here, before anything is spent.
        if (image.value().length() > MAX_IMAGE_LENGTH
                || image.value().codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new FieldProblem(
                    "spec.image",
                    "must be an image reference without spaces or control characters, at most " + MAX_IMAGE_LENGTH
                            + " characters");
        }
        List<String> command = stringList(members, "command");
        if (command.isEmpty()) {
            // The pod runs the command through a shell that redirects its output to the GCS log path.
            throw new FieldProblem("spec.command", "is required: a non-empty array of strings");
        }
        Variables env = env(members);
        return new JobSpec(image.value(), command, stringList(members, "args"), env.inline(), env.fromSecrets());
    }

    /** Docker's own limit for a whole reference is far lower than this; it only stops absurd values. */
    static final int MAX_IMAGE_LENGTH = 1024;

    /**
     * A NUL cannot be passed in a process's arguments or environment: the pod would be created and fail to start
     * (JobFailed with a runtime error), so it is refused at intake.
     */
    private static String withoutNul(String field, String value) throws FieldProblem {
        if (value.indexOf('\0') >= 0) {
            throw new FieldProblem(field, "must not contain the NUL character");
        }
        return value;
    }

    /** The variables of spec.env: inline values, and references to Secrets. */
    private record Variables(Map<String, String> inline, Map<String, JobSpec.SecretRef> fromSecrets) {}

    /**
     * Absent or null: no variables. Values may be strings, numbers or booleans, each taken as its text, or a
     * reference to a key of a Kubernetes Secret of the actor, {@code {"secretKeyRef": {"name": "s", "key": "k"}}}
     * (the pod gets it through valueFrom, so the value is never in the spec).
     */
    private static Variables env(Map<String, JsonTree> spec) throws FieldProblem {
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, JobSpec.SecretRef> fromSecrets = new LinkedHashMap<>();
        JsonTree envNode = spec.getOrDefault("env", new JsonTree.JsonNull());
        if (envNode instanceof JsonTree.JsonNull) {
            return new Variables(env, fromSecrets);
        }
        if (!(envNode instanceof JsonTree.JsonObject variables)) {
            throw new FieldProblem("spec.env", "must be an object of string values or Secret references");
        }
        for (Map.Entry<String, JsonTree> variable : variables.members().entrySet()) {
            String name = variable.getKey();
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new FieldProblem("spec.env." + name, "is not a valid environment variable name");
            }
            if (JobSpec.FALCON_ENV.contains(name)) {
                throw new FieldProblem("spec.env." + name, "is set by Falcon and cannot be given");
            }
            if (variable.getValue() instanceof JsonTree.JsonString value) {
                env.put(name, withoutNul("spec.env." + name, value.value()));
            } else if (variable.getValue() instanceof JsonTree.JsonLiteral literal) {
                env.put(name, literal.text());
            } else if (variable.getValue() instanceof JsonTree.JsonObject reference) {
                fromSecrets.put(name, secretRef("spec.env." + name, reference));
            } else {
                throw new FieldProblem(
                        "spec.env." + name, "must be a string or {\"secretKeyRef\": {\"name\": SECRET, \"key\": KEY}}");
            }
        }
        return new Variables(env, fromSecrets);
    }

    /** {"secretKeyRef": {"name": ..., "key": ...}} and nothing else, each checked as Kubernetes checks it. */
    private static JobSpec.SecretRef secretRef(String field, JsonTree.JsonObject reference) throws FieldProblem {
        if (reference.members().size() != 1
                || !(reference.members().get("secretKeyRef") instanceof JsonTree.JsonObject selector)) {
            throw new FieldProblem(field, "must be a string or {\"secretKeyRef\": {\"name\": SECRET, \"key\": KEY}}");
        }
        String at = field + ".secretKeyRef";
        for (String member : selector.members().keySet()) {
            if (!member.equals("name") && !member.equals("key")) {
                throw new FieldProblem(at + "." + member, "is not allowed: a reference has a name and a key only");
            }
        }
        if (!(selector.members().get("name") instanceof JsonTree.JsonString name)) {
            throw new FieldProblem(at + ".name", "is required: the name of a Secret of the actor");
        }
        if (!(selector.members().get("key") instanceof JsonTree.JsonString key)) {
            throw new FieldProblem(at + ".key", "is required: a key of the Secret");
        }
        Optional<String> nameProblem = JobSpec.secretNameProblem(name.value());
        if (nameProblem.isPresent()) {
            throw new FieldProblem(at + ".name", "'" + name.value() + "' " + nameProblem.get());
        }
        Optional<String> keyProblem = JobSpec.secretKeyProblem(key.value());
        if (keyProblem.isPresent()) {
            throw new FieldProblem(at + ".key", "'" + key.value() + "' " + keyProblem.get());
        }
        return new JobSpec.SecretRef(name.value(), key.value());
    }

    /** Absent or null: empty. */
    private static List<String> stringList(Map<String, JsonTree> spec, String field) throws FieldProblem {
        JsonTree node = spec.getOrDefault(field, new JsonTree.JsonNull());
        List<String> values = new ArrayList<>();
        if (node instanceof JsonTree.JsonNull) {
            return values;
        }
        if (!(node instanceof JsonTree.JsonArray array)) {
            throw new FieldProblem("spec." + field, "must be an array of strings");
        }
        for (int i = 0; i < array.elements().size(); i++) {
            if (!(array.elements().get(i) instanceof JsonTree.JsonString element)) {
                throw new FieldProblem("spec." + field + "[" + i + "]", "must be a string");
            }
            values.add(withoutNul("spec." + field + "[" + i + "]", element.value()));
        }
        return values;
    }
}
