package io.falcon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.faults.core.PolicyRules;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Isolation policy files as operators may write them (issue 20): the RFC's YAML with every value replaced by
 * anything (huge numbers, floats, strings, lists, maps, YAML tags, anchors and aliases), broken YAML, and deep or
 * alias-bomb documents. Parsing never throws: it returns a valid policy inside the RFC's bounds, or every problem,
 * each naming its field (the policy in force is then kept).
 */
class PolicyYamlFuzzTest {
    private static final Meta META = Meta.of("test", Instant.parse("2026-01-01T00:00:00Z"));
    private static final List<String> FIELDS = List.of(
            PolicyRules.ROOT,
            PolicyRules.ENABLED,
            PolicyRules.WINDOW,
            PolicyRules.THRESHOLD,
            PolicyRules.FREE,
            PolicyRules.DRY_RUN,
            PolicyRules.BUDGET);

    @Property(tries = 1000)
    void aPolicyIsValidWithinTheBoundsOrEveryProblemNamesItsField(@ForAll("policies") String yaml) {
        PolicyRules.Validated result = PolicyYaml.parse(yaml, 7, META);
        if (result instanceof PolicyRules.Valid valid) {
            Statistics.label("outcome").collect("valid");
            var policy = valid.policy();
            assertThat(policy.version()).isEqualTo(7);
            assertThat(PolicyRules.problems(policy)).isEmpty();
        } else {
            Statistics.label("outcome").collect("invalid");
            List<String> errors = ((PolicyRules.Invalid) result).errors();
            assertThat(errors).isNotEmpty();
            for (String error : errors) {
                assertThat(error.startsWith("not valid YAML") || FIELDS.stream().anyMatch(error::contains))
                        .as("error '" + error + "' names its field")
                        .isTrue();
            }
        }
    }

    private static Arbitrary<String> scalar() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(-2, 800).map(String::valueOf)),
                Tuple.of(
                        2,
                        Arbitraries.of(
                                "true",
                                "false",
                                "yes",
                                "~",
                                "null",
                                "",
                                "1.5",
                                "1e3",
                                "0x10",
                                "0o17",
                                ".inf",
                                "-.nan",
                                "99999999999999999999",
                                "-2147483649",
                                "\"24\"",
                                "'-1'",
                                "[1, 2]",
                                "{a: 1}",
                                "!!str 24",
                                "!!binary aGk=",
                                "&a 3",
                                "*a",
                                "|\n      multi",
                                "\"\\u0000\"",
                                "日本",
                                "!!java.io.File /etc/passwd")),
                Tuple.of(1, Arbitraries.strings().ascii().ofMaxLength(12).map(s -> "\"" + s.replace("\"", "") + "\"")));
    }

    /** The field's plausible values most of the time, anything otherwise: so that each field is refused in turn. */
    private static Arbitrary<String> mostly(Arbitrary<String> plausible) {
        return Arbitraries.frequencyOf(Tuple.of(7, plausible), Tuple.of(1, scalar()));
    }

    @Provide
    Arbitrary<String> policies() {
        Arbitrary<String> rfcShaped = Combinators.combine(
                        mostly(Arbitraries.of("true", "false")),
                        mostly(Arbitraries.integers().between(1, 720).map(String::valueOf)),
                        mostly(Arbitraries.integers().between(1, 50).map(String::valueOf)),
                        mostly(Arbitraries.integers().between(-1, 240).map(String::valueOf)),
                        mostly(Arbitraries.of("true", "false")),
                        mostly(Arbitraries.integers().between(0, 100).map(String::valueOf)))
                .as((enabled, window, threshold, free, dryRun, budget) -> "manuallySeparatePolicy:\n"
                        + "  enabled: " + enabled + "\n"
                        + "  separate:\n"
                        + "    fault_window_hours: " + window + "\n"
                        + "    fault_threshold: " + threshold + "\n"
                        + "  release:\n"
                        + "    fault_free_hours: " + free + "\n"
                        + "  safeguards:\n"
                        + "    dry_run: " + dryRun + "\n"
                        + "    max_isolated_devices_per_cluster: " + budget + "\n");
        Arbitrary<String> oddShapes = Arbitraries.of(
                "",
                "---",
                "manuallySeparatePolicy:",
                "manuallySeparatePolicy: 5",
                "manuallySeparatePolicy: [1, 2]",
                "manuallySeparatePolicy:\n  separate: 3\n  release: []",
                "- a\n- b",
                "key: [unclosed",
                "\t tab: indented",
                "manuallySeparatePolicy: &p {enabled: true}\nother: *p",
                "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                        + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                        + "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
                "a: " + "[".repeat(3000) + "]".repeat(3000),
                "manuallySeparatePolicy:\n  enabled: true\nmanuallySeparatePolicy:\n  enabled: false",
                "%YAML 9.9\n---\nmanuallySeparatePolicy: {}",
                "!!python/object:os.system ls",
                "--- !!map\n? manuallySeparatePolicy\n: {enabled: true}");
        return Arbitraries.frequencyOf(
                Tuple.of(8, rfcShaped),
                Tuple.of(2, oddShapes),
                Tuple.of(1, Arbitraries.strings().all().ofMaxLength(60)));
    }
}
