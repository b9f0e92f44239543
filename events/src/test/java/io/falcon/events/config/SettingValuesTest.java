package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingValuesTest {
    private static final Setting<String> NAME =
            Setting.required("falcon.sink.group-id", SettingType.TEXT, Validator.any(), "a required text");
    private static final Setting<Long> BATCH = Setting.withDefault(
            "falcon.sink.max-batch", SettingType.WHOLE, 1L, Validator.between(1, 10), "a bounded whole number");
    private static final Setting<Duration> WAIT = Setting.withDefault(
            "falcon.sink.max-backoff",
            SettingType.DURATION,
            Duration.ofSeconds(5),
            Validator.positive(),
            "a positive duration");
    private static final Setting<Boolean> FLAG = Setting.withDefault(
            "falcon.faults.count-jobless-faults", SettingType.BOOLEAN, true, Validator.any(), "a flag");
    private static final Setting<String> MODE = Setting.withDefault(
            "falcon.cdc.database.flavor",
            SettingType.Choice.of("mariadb", "mysql"),
            "mariadb",
            Validator.any(),
            "a choice");
    private static final Setting<String> PASSWORD =
            Setting.withDefault("falcon.db.password", SettingType.SECRET, "", Validator.any(), "a secret");
    private static final Setting<Path> FILE = Setting.optional(
            "falcon.faults.policy-file", SettingType.PATH, "nothing", Validator.any(), "an optional path");
    private static final Component TEST = new Component(
            "test",
            "",
            List.of(NAME, BATCH, WAIT, FLAG, MODE, PASSWORD, FILE),
            List.of(CdcIngestKeys.DEBEZIUM),
            List.of());

    private static SettingValues parse(Map<String, String> raw) {
        return SettingValues.parse(TEST, raw);
    }

    @Test
    void readsDottedAndEnvironmentStyleKeys() {
        SettingValues values = parse(
                Map.of("falcon.sink.group-id", "x", "FALCON_SINK_MAX_BATCH", "7", "falcon.sink.max-backoff", "30s"));
        assertThat(values.get(NAME)).isEqualTo("x");
        assertThat(values.getInt(BATCH)).isEqualTo(7);
        assertThat(values.get(WAIT)).isEqualTo(Duration.ofSeconds(30));
        assertThat(values.get(FLAG)).isTrue();
        assertThat(values.get(MODE)).isEqualTo("mariadb");
        assertThat(values.get(PASSWORD)).isEmpty();
        assertThat(values.find(FILE)).isEmpty();
    }

    @Test
    void theEnvironmentNameIsDerivedFromTheKey() {
        assertThat(Setting.envNameOf("falcon.sink.max-batch")).isEqualTo("FALCON_SINK_MAX_BATCH");
        assertThat(Setting.envNameOf("falcon.executor.node-pool.scale-down.flex-start"))
                .isEqualTo("FALCON_EXECUTOR_NODE_POOL_SCALE_DOWN_FLEX_START");
        assertThat(SharedKeys.KAFKA_BOOTSTRAP_SERVERS.envName()).isEqualTo("FALCON_KAFKA_BOOTSTRAP_SERVERS");
        assertThat(CdcIngestKeys.DEBEZIUM.envPrefix()).isEqualTo("FALCON_CDC_DEBEZIUM_");
    }

    @Test
    void eachTypeParsesItsTextAndRefusesOther() {
        SettingValues values = parse(Map.of(
                "falcon.sink.group-id",
                " padded ",
                "falcon.faults.count-jobless-faults",
                "FALSE",
                "falcon.cdc.database.flavor",
                "MySQL",
                "falcon.db.password",
                "s3cret",
                "falcon.faults.policy-file",
                "/etc/falcon/policy.yaml",
                "falcon.sink.max-backoff",
                "PT1M"));
        assertThat(values.get(NAME)).isEqualTo("padded");
        assertThat(values.get(FLAG)).isFalse();
        assertThat(values.get(MODE)).isEqualTo("mysql");
        assertThat(values.get(PASSWORD)).isEqualTo("s3cret");
        assertThat(values.find(FILE)).contains(Path.of("/etc/falcon/policy.yaml"));
        assertThat(values.get(WAIT)).isEqualTo(Duration.ofMinutes(1));

        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.sink.max-batch", "abc")))
                .hasMessageContaining("falcon.sink.max-batch")
                .hasMessageContaining("whole number")
                .hasMessageContaining("'abc'");
        assertThatThrownBy(
                        () -> parse(Map.of("falcon.sink.group-id", "x", "falcon.faults.count-jobless-faults", "yes")))
                .hasMessageContaining("falcon.faults.count-jobless-faults")
                .hasMessageContaining("true or false");
        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.cdc.database.flavor", "postgres")))
                .hasMessageContaining("mariadb or mysql")
                .hasMessageContaining("'postgres'");
        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.sink.max-backoff", "soon")))
                .hasMessageContaining("falcon.sink.max-backoff")
                .hasMessageContaining(DurationText.GRAMMAR);
    }

    @Test
    void validatorsBoundTheParsedValue() {
        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.sink.max-batch", "500")))
                .hasMessageContaining("falcon.sink.max-batch")
                .hasMessageContaining("between 1 and 10")
                .hasMessageContaining("'500'");
        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.sink.max-backoff", "0s")))
                .hasMessageContaining("falcon.sink.max-backoff")
                .hasMessageContaining("positive");
        assertThat(Validator.between(Duration.ZERO, Duration.ofMinutes(10))
                        .accepts()
                        .test(Duration.ofMinutes(11)))
                .isFalse();
        assertThat(Validator.atLeast(Duration.ofMillis(100)).accepts().test(Duration.ofMillis(99)))
                .isFalse();
        assertThat(Validator.notNegative().accepts().test(Duration.ZERO)).isTrue();
        assertThat(Validator.matching("[a-z]+", "letters").accepts().test("abc1"))
                .isFalse();
    }

    @Test
    void everyProblemIsReportedAtOnceWithKeyAndEnvironmentName() {
        assertThatThrownBy(() -> parse(Map.of(
                        "falcon.sink.max-batch",
                        "0",
                        "FALCON_SINK_MAX_BACKOFF",
                        "later",
                        "falcon.sink.typo",
                        "1",
                        "FALCON_SINK_TYPO",
                        "2")))
                .isInstanceOfSatisfying(InvalidSettingsException.class, e -> {
                    assertThat(e.component()).isEqualTo("test");
                    assertThat(e.keys())
                            .containsExactlyInAnyOrder(
                                    "falcon.sink.group-id",
                                    "falcon.sink.max-batch",
                                    "falcon.sink.max-backoff",
                                    "falcon.sink.typo",
                                    "");
                    assertThat(e.getMessage())
                            .startsWith("invalid configuration of test (5 problems")
                            .contains("falcon.sink.group-id (FALCON_SINK_GROUP_ID): is required")
                            .contains("falcon.sink.max-batch (FALCON_SINK_MAX_BATCH): must be between 1 and 10")
                            .contains("falcon.sink.max-backoff (FALCON_SINK_MAX_BACKOFF): must be a duration")
                            .contains("falcon.sink.typo: unknown setting")
                            .contains("\n  FALCON_SINK_TYPO: unknown setting");
                });
    }

    @Test
    void unknownNamesAreRefusedButOtherComponentsSettingsAndForeignNamesAreNot() {
        SettingValues values = parse(Map.of(
                "falcon.sink.group-id",
                "x",
                "FALCON_KAFKA_REPLICATION_FACTOR",
                "3",
                "falcon.executor.namespace",
                "jobs",
                "FALCON_LOG_FORMAT",
                "json",
                "PATH",
                "/usr/bin",
                "java.version",
                "17",
                "falcon.cdc.debezium.snapshot.mode",
                "initial"));
        assertThat(values.passedThrough(CdcIngestKeys.DEBEZIUM)).containsExactly(Map.entry("snapshot.mode", "initial"));
        assertThatThrownBy(() -> values.get(SharedKeys.KAFKA_REPLICATION_FACTOR))
                .hasMessageContaining("test does not declare falcon.kafka.replication-factor");

        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "x", "falcon.sink.topic", "other")))
                .hasMessageContaining("falcon.sink.topic: unknown setting");
        assertThatThrownBy(() ->
                        parse(Map.of("falcon.sink.group-id", "x", "FALCON_CDC_DEBEZIUM_SNAPSHOT_MODE", "initial")))
                .hasMessageContaining("FALCON_CDC_DEBEZIUM_SNAPSHOT_MODE")
                .hasMessageContaining("system properties only");
    }

    @Test
    void blankIsUnsetAndSystemPropertiesWinOverTheEnvironment() {
        assertThatThrownBy(() -> parse(Map.of("falcon.sink.group-id", "  "))).hasMessageContaining("is required");
        Properties system = new Properties();
        system.setProperty("falcon.sink.max-batch", "9");
        SettingValues values = SettingValues.fromEnvironment(
                TEST, Map.of("FALCON_SINK_MAX_BATCH", "3", "FALCON_SINK_GROUP_ID", "g"), system);
        assertThat(values.getInt(BATCH)).isEqualTo(9);
        assertThat(values.get(NAME)).isEqualTo("g");
    }

    @Test
    void secretsNeverAppearInMessages() {
        Setting<String> pin = Setting.withDefault(
                "falcon.db.password", SettingType.SECRET, "", Validator.matching("\\d+", "digits"), "");
        Component component = new Component("pin", "", List.of(pin), List.of(), List.of());
        assertThatThrownBy(() -> SettingValues.parse(component, Map.of("falcon.db.password", "hunter2")))
                .hasMessageContaining("falcon.db.password")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void rulesOverSeveralSettingsAreReportedWithTheOtherProblems() {
        Component component = new Component(
                "rule",
                "",
                List.of(NAME, BATCH, WAIT),
                List.of(),
                List.of(new Rule(
                        List.of(BATCH, WAIT),
                        "must not both be large",
                        values -> values.get(BATCH) < 5 || values.get(WAIT).toSeconds() < 5)));
        Map<String, String> raw = new HashMap<>(Map.of("falcon.sink.max-batch", "6", "falcon.sink.max-backoff", "10s"));
        assertThatThrownBy(() -> SettingValues.parse(component, raw))
                .isInstanceOfSatisfying(
                        InvalidSettingsException.class,
                        e -> assertThat(e.keys())
                                .containsExactly(
                                        "falcon.sink.group-id", "falcon.sink.max-batch, falcon.sink.max-backoff"));
        raw.put("falcon.sink.max-backoff", "1s");
        raw.put("falcon.sink.group-id", "g");
        assertThat(SettingValues.parse(component, raw).getInt(BATCH)).isEqualTo(6);
    }

    @Test
    void aSingleSettingCanBeReadOnItsOwn() {
        assertThat(SharedKeys.OPS_PORT.readFrom(Map.of())).isEqualTo(8080L);
        assertThat(SharedKeys.OPS_PORT.readFrom(Map.of("FALCON_OPS_PORT", "9100", "FALCON_WHATEVER", "x")))
                .isEqualTo(9100L);
        assertThatThrownBy(() -> SharedKeys.OPS_PORT.readFrom(Map.of("falcon.ops.port", "70000")))
                .hasMessageContaining("falcon.ops.port")
                .hasMessageContaining("between 0 and 65535");
    }
}
