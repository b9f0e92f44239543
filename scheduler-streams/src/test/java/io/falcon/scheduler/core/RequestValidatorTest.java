package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Intake validation: what is refused InvalidSpec before anything is created, naming the field. */
class RequestValidatorTest {

    private static JobRequest request(String id, String tpuType, String topology) {
        return new JobRequest(
                id,
                "alice",
                "n",
                tpuType,
                topology,
                SchedulerFixture.SPEC,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z"));
    }

    @ParameterizedTest
    @CsvSource({
        "v6e, 2x4",
        "v6e, 16x16",
        "v5e, 4x8",
        "v5p, 2x2x1",
        "v5p, 4x4x4",
        "v5p, 4x8x8",
        "v7x, 2x2x4",
        "v7x, 8x8x16"
    })
    void everyGenerationsSliceShapesAreAccepted(String tpuType, String topology) {
        assertThat(RequestValidator.validate(request("j1", tpuType, topology)))
                .isInstanceOf(RequestValidator.Valid.class);
    }

    @ParameterizedTest
    @CsvSource({
        "v6e, 4x4x4",
        "v6e, 2x6",
        "v5e, 32x32",
        "v5p, 2x4",
        "v5p, 4x2x2",
        "v5p, 2x4x8",
        "v7x, 2x4",
        "v7x, 64x64x64"
    })
    void aShapeTheGenerationDoesNotHaveIsInvalidSpecListingTheValidOnes(String tpuType, String topology) {
        RequestValidator.Result result = RequestValidator.validate(request("j1", tpuType, topology));
        assertThat(result).isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
            assertThat(invalid.field()).isEqualTo("topology");
            assertThat(invalid.message()).contains("'" + topology + "' is not a " + tpuType + " slice shape; valid: ");
        });
        if (tpuType.equals("v6e")) {
            assertThat(((RequestValidator.Invalid) result).message()).endsWith("2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"has space", "a/b", "..", "../etc", ".hidden", "x..y", "é"})
    void aJobIdThatCannotNameItsLogPathIsInvalidSpec(String id) {
        assertThat(RequestValidator.validate(request(id, "v6e", "2x4")))
                .isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
                    assertThat(invalid.field()).isEqualTo("id");
                    assertThat(invalid.message()).contains("gs://<bucket>/logs/<id>/");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"j1", "job-42", "6a0f3c1e-0000-4000-8000-00000000000a", "run_7.2"})
    void ordinaryJobIdsAreAccepted(String id) {
        assertThat(RequestValidator.validate(request(id, "v6e", "2x4"))).isInstanceOf(RequestValidator.Valid.class);
    }

    private static RequestValidator.Result withSpec(String spec) {
        return RequestValidator.validate(new JobRequest(
                "j1",
                "alice",
                "n",
                "v6e",
                "2x4",
                spec,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z")));
    }

    /** Every spec problem's Message, word for word (the upper components show it as it is). */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "{not json | spec is not valid JSON: Unexpected character ('n' (code 110)): was expecting double-quote to "
                        + "start field name",
                "`{\"image\":\"x\",\"command\":[\"sh\"],}` | spec is not valid JSON: Unexpected character ('}' (code "
                        + "125)): was expecting double-quote to start field name",
                "[1,2] | spec must be a JSON object",
                "null | spec must be a JSON object",
                "`{\"hostPath\":null}` | spec.hostPath is not allowed: Falcon renders the pod itself",
                "`{\"image\":7,\"command\":[\"sh\"]}` | spec.image is required and must be a non-empty string",
                "`{\"image\":\"x\",\"command\":[]}` | spec.command is required: a non-empty array of strings",
                "`{\"image\":\"x\",\"command\":\"sh\"}` | spec.command must be an array of strings",
                "`{\"image\":\"x\",\"command\":[\"sh\",3]}` | spec.command[1] must be a string",
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"args\":[null]}` | spec.args[0] must be a string",
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"env\":[]}` | spec.env must be an object of string values or"
                        + " Secret references",
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"1A\":\"v\"}}` | spec.env.1A is not a valid "
                        + "environment variable name",
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"A\":null}}` | spec.env.A must be a string or "
                        + "{\"secretKeyRef\": {\"name\": SECRET, \"key\": KEY}}",
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"A\":[\"v\"]}}` | spec.env.A must be a string or "
                        + "{\"secretKeyRef\": {\"name\": SECRET, \"key\": KEY}}",
                // found by SpecToPodPropertyTest: accepted here, then refused by the executor's renderer or Kubernetes
                "`{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"POD_NAME\":\"p\"}}` | spec.env.POD_NAME is set by "
                        + "Falcon and cannot be given",
                "`{\"image\":\"x y\",\"command\":[\"sh\"]}` | spec.image must be an image reference without spaces or "
                        + "control characters, at most 1024 characters",
                "`{\"image\":\"x\",\"command\":[\"sh\",\"a\\u0000b\"]}` | spec.command[1] must not contain the NUL "
                        + "character"
            })
    void eachSpecProblemHasItsExactMessage(String spec, String problem) {
        assertThat(withSpec(spec))
                .isInstanceOfSatisfying(
                        RequestValidator.Invalid.class,
                        invalid -> assertThat(invalid.message()).isEqualTo("invalid request: " + problem));
    }

    @Test
    void anEnvValueMayReferenceAKeyOfASecretInsteadOfCarryingTheValue() {
        RequestValidator.Result result = withSpec("{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"MODE\":\"fast\","
                + "\"HF_TOKEN\":{\"secretKeyRef\":{\"name\":\"hf.tokens-1\",\"key\":\"Token_1.v2\"}}}}");
        assertThat(result).isInstanceOfSatisfying(RequestValidator.Valid.class, valid -> {
            assertThat(valid.request().spec().env()).isEqualTo(java.util.Map.of("MODE", "fast"));
            assertThat(valid.request().spec().secretEnv())
                    .isEqualTo(java.util.Map.of(
                            "HF_TOKEN", new io.falcon.events.executor.JobSpec.SecretRef("hf.tokens-1", "Token_1.v2")));
        });
    }

    /** A malformed reference is InvalidSpec naming the member at fault, before any node pool is made. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "`{\"secretKeyRef\":\"s\"}` | spec.env.T must be a string or {\"secretKeyRef\": {\"name\": SECRET,"
                        + " \"key\": KEY}}",
                "`{\"secretRef\":{\"name\":\"s\",\"key\":\"k\"}}` | spec.env.T must be a string or {\"secretKeyRef\":"
                        + " {\"name\": SECRET, \"key\": KEY}}",
                "`{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"},\"value\":\"v\"}` | spec.env.T must be a string or"
                        + " {\"secretKeyRef\": {\"name\": SECRET, \"key\": KEY}}",
                "`{\"secretKeyRef\":{\"key\":\"k\"}}` | spec.env.T.secretKeyRef.name is required: the name of a Secret of"
                        + " the actor",
                "`{\"secretKeyRef\":{\"name\":\"s\"}}` | spec.env.T.secretKeyRef.key is required: a key of the Secret",
                "`{\"secretKeyRef\":{\"name\":7,\"key\":\"k\"}}` | spec.env.T.secretKeyRef.name is required: the name of"
                        + " a Secret of the actor",
                "`{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\",\"optional\":true}}` | spec.env.T.secretKeyRef.optional"
                        + " is not allowed: a reference has a name and a key only",
                "`{\"secretKeyRef\":{\"name\":\"S\",\"key\":\"k\"}}` | spec.env.T.secretKeyRef.name 'S' must be a"
                        + " Kubernetes Secret name (lowercase letters, digits, '-' and '.', starting and ending with a"
                        + " letter or digit) of at most 192 characters",
                "`{\"secretKeyRef\":{\"name\":\"../s\",\"key\":\"k\"}}` | spec.env.T.secretKeyRef.name '../s' must be a"
                        + " Kubernetes Secret name (lowercase letters, digits, '-' and '.', starting and ending with a"
                        + " letter or digit) of at most 192 characters",
                "`{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"a/b\"}}` | spec.env.T.secretKeyRef.key 'a/b' must be a"
                        + " Secret key (letters, digits, '-', '_' and '.', at most 253 characters, not '.' and not"
                        + " starting with '..')",
                "`{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"..k\"}}` | spec.env.T.secretKeyRef.key '..k' must be a"
                        + " Secret key (letters, digits, '-', '_' and '.', at most 253 characters, not '.' and not"
                        + " starting with '..')",
                "`{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"\"}}` | spec.env.T.secretKeyRef.key '' must be a Secret"
                        + " key (letters, digits, '-', '_' and '.', at most 253 characters, not '.' and not starting"
                        + " with '..')"
            })
    void aMalformedSecretReferenceIsInvalidSpecNamingTheMember(String reference, String problem) {
        assertThat(withSpec("{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"T\":" + reference + "}}"))
                .isInstanceOfSatisfying(
                        RequestValidator.Invalid.class,
                        invalid -> assertThat(invalid.message()).isEqualTo("invalid request: " + problem));
    }

    @Test
    void aSecretNameIsAtMostWhatTheActorsPrefixLeavesOfAKubernetesName() {
        String longest = "s".repeat(io.falcon.events.executor.JobSpec.MAX_SECRET_NAME);
        assertThat(withSpec("{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"T\":{\"secretKeyRef\":{\"name\":\""
                        + longest + "\",\"key\":\"k\"}}}}"))
                .isInstanceOf(RequestValidator.Valid.class);
        assertThat(io.falcon.events.executor.JobSpec.secretName("a".repeat(300), longest))
                .as("the actor's Secret is still a Kubernetes name")
                .hasSizeLessThanOrEqualTo(253);
        assertThat(withSpec("{\"image\":\"x\",\"command\":[\"sh\"],\"env\":{\"T\":{\"secretKeyRef\":{\"name\":\""
                        + longest + "s\",\"key\":\"k\"}}}}"))
                .isInstanceOfSatisfying(
                        RequestValidator.Invalid.class,
                        invalid -> assertThat(invalid.field()).isEqualTo("spec.env.T.secretKeyRef.name"));
    }

    @Test
    void envValuesMayBeNumbersOrBooleansTakenAsTheirText() {
        RequestValidator.Result result = withSpec(
                "{\"image\":\"x\",\"command\":[\"sh\"],\"args\":null,\"env\":{\"N\":7,\"D\":1.50,\"B\":false}}");
        assertThat(result).isInstanceOfSatisfying(RequestValidator.Valid.class, valid -> {
            assertThat(valid.request().spec().env()).isEqualTo(java.util.Map.of("N", "7", "D", "1.5", "B", "false"));
            assertThat(valid.request().spec().args()).isEmpty();
        });
    }

    private static final String PLAIN_SPEC = "{\"image\":\"x\",\"command\":[\"sh\"]";

    private static RequestValidator.Result prioritized(Optional<Long> column, String specPriority) {
        String spec = specPriority.isEmpty() ? PLAIN_SPEC + "}" : PLAIN_SPEC + ",\"priority\":" + specPriority + "}";
        return RequestValidator.validate(new JobRequest(
                "j1",
                "alice",
                "n",
                "v6e",
                "2x4",
                spec,
                Optional.empty(),
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z"),
                column));
    }

    private static int priorityOf(RequestValidator.Result result) {
        assertThat(result).isInstanceOf(RequestValidator.Valid.class);
        return ((RequestValidator.Valid) result).request().priority();
    }

    /** The column when not NULL, else spec.priority, else 0. */
    @ParameterizedTest
    @CsvSource(
            nullValues = "NULL",
            value = {
                "NULL, '', 0",
                "NULL, 7, 7",
                "NULL, -3, -3",
                "NULL, null, 0",
                "5, '', 5",
                "5, 9, 5",
                "-2, 9, -2",
                "1000, '', 1000",
                "-1000, '', -1000"
            })
    void theColumnWinsOverSpecPriorityWhichWinsOverZero(Long column, String specPriority, int expected) {
        assertThat(priorityOf(prioritized(Optional.ofNullable(column), specPriority)))
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "`\"high\"` | spec.priority must be a whole number between -1000 and 1000, got the string \"high\"",
                "2.5 | spec.priority must be a whole number between -1000 and 1000, got 2.5",
                "1e3 | spec.priority must be a whole number between -1000 and 1000, got 1000.0",
                "true | spec.priority must be a whole number between -1000 and 1000, got true",
                "[1] | spec.priority must be a whole number between -1000 and 1000, got an array",
                "1001 | spec.priority must be a whole number between -1000 and 1000, got 1001",
                "-99999999999 | spec.priority must be a whole number between -1000 and 1000, got -99999999999"
            })
    void aMalformedSpecPriorityIsInvalidSpecNamingIt(String specPriority, String problem) {
        assertThat(prioritized(Optional.empty(), specPriority))
                .isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
                    assertThat(invalid.field()).isEqualTo("spec.priority");
                    assertThat(invalid.message()).isEqualTo("invalid request: " + problem);
                });
        // also when the column is set: a malformed value never lies in the spec unnoticed
        assertThat(prioritized(Optional.of(1L), specPriority)).isInstanceOf(RequestValidator.Invalid.class);
    }

    @ParameterizedTest
    @ValueSource(longs = {1001, -1001, Long.MAX_VALUE})
    void aPriorityColumnOutOfBoundsIsInvalidSpecNamingIt(long column) {
        assertThat(prioritized(Optional.of(column), ""))
                .isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
                    assertThat(invalid.field()).isEqualTo("priority");
                    assertThat(invalid.message())
                            .isEqualTo("invalid request: priority must be between -1000 and 1000, got " + column);
                });
    }

    // ---- spec.supply_mode (seed section 5: TaskSpec.supply_mode), which was silently ignored ----

    private static RequestValidator.Result supplied(Optional<String> column, String specMember) {
        return RequestValidator.validate(new JobRequest(
                "j1",
                "alice",
                "n",
                "v6e",
                "2x4",
                PLAIN_SPEC + (specMember.isEmpty() ? "" : ",\"supply_mode\":" + specMember) + "}",
                column,
                Optional.empty(),
                Instant.parse("2026-12-02T09:00:00Z")));
    }

    private static Optional<io.falcon.events.executor.SupplyMode> modeOf(RequestValidator.Result result) {
        assertThat(result).isInstanceOf(RequestValidator.Valid.class);
        return ((RequestValidator.Valid) result).request().supplyMode();
    }

    @Test
    void specSupplyModeIsHonouredWhenTheColumnIsEmptyAndTheColumnWins() {
        assertThat(modeOf(supplied(Optional.empty(), "\"on-demand\"")))
                .contains(io.falcon.events.executor.SupplyMode.ON_DEMAND);
        assertThat(modeOf(supplied(Optional.of("flex-start"), "\"on-demand\"")))
                .contains(io.falcon.events.executor.SupplyMode.FLEX_START);
        assertThat(modeOf(supplied(Optional.empty(), ""))).isEmpty();
        assertThat(modeOf(supplied(Optional.empty(), "\"\""))).isEmpty();
        assertThat(modeOf(supplied(Optional.empty(), "null"))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"spot\"", "3", "[\"reservation\"]"})
    void aMalformedSpecSupplyModeIsInvalidSpecNamingItEvenWhenTheColumnIsSet(String member) {
        for (Optional<String> column : java.util.List.of(Optional.<String>empty(), Optional.of("reservation"))) {
            RequestValidator.Result result = supplied(column, member);
            assertThat(result).isInstanceOf(RequestValidator.Invalid.class);
            assertThat(((RequestValidator.Invalid) result).field()).isEqualTo("spec.supply_mode");
        }
    }

    // ---- spec.retry: automatic retry of attempts the fleet ended ----

    private static RequestValidator.Result retrying(String retry) {
        return withSpec(PLAIN_SPEC + ",\"retry\":" + retry + "}");
    }

    @Test
    void specRetryGivesTheRetriesAndTheExitCodesOptedIn() {
        assertThat(retrying("{\"max_retries\":3,\"on_exit_codes\":[42,7,42]}"))
                .isInstanceOfSatisfying(
                        RequestValidator.Valid.class,
                        valid -> assertThat(valid.request().retry())
                                .isEqualTo(new RetryPolicy(Optional.of(3), java.util.Set.of(7, 42))));
        assertThat(retrying("null"))
                .isInstanceOfSatisfying(
                        RequestValidator.Valid.class,
                        valid -> assertThat(valid.request().retry()).isEqualTo(RetryPolicy.UNSTATED));
        assertThat(retrying("{}"))
                .isInstanceOfSatisfying(
                        RequestValidator.Valid.class,
                        valid ->
                                assertThat(valid.request().retry().maxRetries()).isEmpty());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "3 | spec.retry | spec.retry must be an object such as {\"max_retries\": 2}, got 3",
                "`{\"max_retries\":11}` | spec.retry.max_retries"
                        + " | spec.retry.max_retries must be a whole number between 0 and 10, got 11",
                "`{\"max_retries\":-1}` | spec.retry.max_retries"
                        + " | spec.retry.max_retries must be a whole number between 0 and 10, got -1",
                "`{\"max_retries\":\"2\"}` | spec.retry.max_retries"
                        + " | spec.retry.max_retries must be a whole number between 0 and 10, got the string \"2\"",
                "`{\"maxRetries\":2}` | spec.retry.maxRetries"
                        + " | spec.retry.maxRetries is not a member of spec.retry (max_retries, on_exit_codes)",
                "`{\"on_exit_codes\":[0]}` | spec.retry.on_exit_codes"
                        + " | spec.retry.on_exit_codes must hold exit codes from 1 to 255, got 0",
                "`{\"on_exit_codes\":[256]}` | spec.retry.on_exit_codes"
                        + " | spec.retry.on_exit_codes must hold exit codes from 1 to 255, got 256",
                "`{\"on_exit_codes\":1}` | spec.retry.on_exit_codes"
                        + " | spec.retry.on_exit_codes must be an array of exit codes, got 1",
                "`{\"on_exit_codes\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}` | spec.retry.on_exit_codes"
                        + " | spec.retry.on_exit_codes names 17 exit codes; at most 16"
            })
    void aMalformedSpecRetryIsInvalidSpecNamingTheField(String retry, String field, String problem) {
        assertThat(retrying(retry)).isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
            assertThat(invalid.field()).isEqualTo(field);
            assertThat(invalid.message()).isEqualTo("invalid request: " + problem);
        });
    }

    @Test
    void theMaxRetriesColumnWinsOverSpecRetryAndKeepsItsExitCodes() {
        JobRequest request = new JobRequest(
                        "j1",
                        "alice",
                        "n",
                        "v6e",
                        "2x4",
                        PLAIN_SPEC + ",\"retry\":{\"max_retries\":1,\"on_exit_codes\":[42]}}",
                        Optional.empty(),
                        Optional.empty(),
                        Instant.parse("2026-12-02T09:00:00Z"))
                .withMaxRetries(3);
        assertThat(RequestValidator.validate(request))
                .isInstanceOfSatisfying(
                        RequestValidator.Valid.class,
                        valid -> assertThat(valid.request().retry())
                                .isEqualTo(new RetryPolicy(Optional.of(3), java.util.Set.of(42))));
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 11, Long.MAX_VALUE})
    void aMaxRetriesColumnOutOfBoundsIsInvalidSpecNamingIt(long column) {
        JobRequest request = new JobRequest(
                        "j1",
                        "alice",
                        "n",
                        "v6e",
                        "2x4",
                        PLAIN_SPEC + "}",
                        Optional.empty(),
                        Optional.empty(),
                        Instant.parse("2026-12-02T09:00:00Z"))
                .withMaxRetries(column);
        assertThat(RequestValidator.validate(request))
                .isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
                    assertThat(invalid.field()).isEqualTo("max_retries");
                    assertThat(invalid.message())
                            .isEqualTo("invalid request: max_retries must be between 0 and 10, got " + column);
                });
    }
}
