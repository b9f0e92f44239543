package io.falcon.scheduler.topology;

import static io.falcon.testkit.builders.ClusterRowBuilder.clusterRow;
import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Json;
import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.cdc.SchedulerRouting;
import io.falcon.events.status.TaskStatus;
import io.falcon.ops.FalconMetrics;
import io.falcon.scheduler.core.SchedulerSettings;
import io.falcon.testkit.builders.RowChangeBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * Executor events as anything with write access to falcon.executor.events may produce them (issue 20): every event
 * type with random and hostile field values (unknown jobs and clusters, wrong tpu types, nulls, huge numbers,
 * wrong JSON types, broken meta) and bytes that are not JSON, through the real scheduler topology with jobs in
 * flight. No record escapes as an exception, each dead letter says why, every status written is complete, and the
 * stream goes on: a job inserted after each batch is still placed.
 */
class ExecutorEventFuzzTest {
    private static final Instant START = Instant.parse("2026-12-02T10:00:00Z");
    private static final List<String> TYPES = List.of(
            "NodePoolReady",
            "NodePoolCreating",
            "NodePoolCreateFailed",
            "NodePoolDeleted",
            "NodePoolDeleteFailing",
            "JobSubmitted",
            "JobSubmitFailed",
            "JobRunning",
            "JobSucceeded",
            "JobFailed",
            "JobDeleted",
            "NodePoolWaitingForNodes",
            "ReservationShort",
            "ReservationSeen",
            "NodePoolInventory",
            "JobInventory");

    private static TopologyTestDriver driver;
    private static TestInputTopic<String, SchedulerInput> input;
    private static TestInputTopic<String, byte[]> rawEvents;
    private static TestOutputTopic<String, TaskStatus> statuses;
    private static TestOutputTopic<String, DeadLetter> deadLetters;
    private static int probes;

    @BeforeContainer
    static void start() throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "scheduler-fuzz");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("scheduler-fuzz").toString());
        driver = new TopologyTestDriver(
                SchedulerTopology.build(
                        Duration.ofSeconds(1),
                        SchedulerSettings.defaults().withAcquirersPerQueue(1),
                        new FalconMetrics(new SimpleMeterRegistry())),
                props,
                START);
        var keys = Serdes.String();
        input = driver.createInputTopic(
                Topics.SCHEDULER_INPUT.name(),
                keys.serializer(),
                Topics.SCHEDULER_INPUT.valueSerde().serializer());
        rawEvents = driver.createInputTopic(
                Topics.EXECUTOR_EVENTS.name(),
                keys.serializer(),
                Serdes.ByteArray().serializer());
        statuses = driver.createOutputTopic(
                Topics.TASK_STATUS.name(),
                keys.deserializer(),
                Topics.TASK_STATUS.valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(
                Topics.DEAD_LETTER.name(),
                keys.deserializer(),
                Topics.DEAD_LETTER.valueSerde().deserializer());
        route(RowChangeBuilder.inserted(clusterRow("c1").build()).build());
        route(RowChangeBuilder.inserted(clusterRow("c2").build()).build());
        // jobs in flight, so that events naming them reach the real transitions
        for (String job : List.of("j1", "j2", "j3")) {
            route(RowChangeBuilder.inserted(jobRow(job).build()).build());
        }
        statuses.readValuesToList();
    }

    private static void route(Object change) {
        List<SchedulerRouting.Routed> routed = change instanceof io.falcon.events.cdc.JobChange job
                ? SchedulerRouting.route(job)
                : SchedulerRouting.route((io.falcon.events.cdc.ClusterChange) change);
        routed.forEach(r -> input.pipeInput(r.key(), r.input()));
    }

    @AfterContainer
    static void stop() {
        driver.close();
    }

    @Property(tries = 80)
    void everyEventIsAppliedOrDeadLetteredAndTheStreamGoesOn(@ForAll("batches") List<byte[]> batch) {
        for (byte[] event : batch) {
            rawEvents.pipeInput("v6e", event);
        }
        // one tick: timers the events may have set run too
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        for (DeadLetter letter : deadLetters.readValuesToList()) {
            assertThat(letter.reason()).isNotBlank();
            Statistics.label("record").collect("dead-lettered");
        }
        for (TaskStatus status : statuses.readValuesToList()) {
            assertThat(status.jobId()).isNotBlank();
            assertThat(status.status()).isNotNull();
            assertThat(status.message()).isNotNull();
        }
        String probe = "probe-" + ++probes;
        route(RowChangeBuilder.inserted(jobRow(probe).build()).build());
        assertThat(statuses.readValuesToList())
                .as("a job inserted after the batch is still placed")
                .anyMatch(status -> status.jobId().equals(probe));
    }

    // ---- generators ----

    private static Arbitrary<Object> strings() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        4,
                        Arbitraries.of(
                                (Object) "j1",
                                "j2",
                                "j3",
                                "c1",
                                "c2",
                                "v6e",
                                io.falcon.events.ResourceNames.nodePool(
                                        io.falcon.events.ResourceNames.DEFAULT_INSTALLATION, "j1"),
                                "probe-1")),
                Tuple.of(
                        2,
                        Arbitraries.of(
                                (Object) "",
                                " ",
                                "v9z",
                                "../c1",
                                "c1\u0000",
                                "日本",
                                "x".repeat(2000),
                                "NaN",
                                "{\"type\":\"JobRunning\"}")),
                Tuple.of(1, Arbitraries.of((Object) 1, -1L, Long.MAX_VALUE, 1e308, true, List.of(), Map.of())),
                Tuple.of(1, Arbitraries.just(null)));
    }

    private static Arbitrary<Object> numbers() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(-1, 100).map(i -> (Object) i)),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                (Object) Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE, "12", 1.5, null, true)));
    }

    private static Arbitrary<Object> meta() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        6,
                        Combinators.combine(
                                        Arbitraries.strings().alpha().ofLength(8),
                                        Arbitraries.of(
                                                (Object) "2026-12-02T10:00:01Z",
                                                "-1000000000-01-01T00:00:00Z",
                                                "+1000000000-12-31T23:59:59Z",
                                                "yesterday",
                                                1_764_669_600_000L,
                                                null))
                                .as((id, at) -> {
                                    Map<String, Object> m = new LinkedHashMap<>();
                                    m.put("eventId", id);
                                    m.put("occurredAt", at);
                                    m.put("producer", "executor");
                                    return (Object) m;
                                })),
                Tuple.of(1, Arbitraries.of((Object) "meta", List.of(1))),
                Tuple.of(1, Arbitraries.just(null)));
    }

    /** An event of a random type with every field any event has, each plausible or hostile. */
    private static Arbitrary<byte[]> events() {
        Arbitrary<Map<String, Object>> fields = Combinators.combine(
                        Arbitraries.frequencyOf(
                                Tuple.of(9, Arbitraries.of(TYPES).map(t -> (Object) t)),
                                Tuple.of(1, Arbitraries.of((Object) "Unknown", 3, null))),
                        meta(),
                        strings(),
                        strings(),
                        strings(),
                        strings(),
                        numbers(),
                        numbers())
                .as((type, meta, job, cluster, tpu, name, n1, n2) -> {
                    Map<String, Object> event = new LinkedHashMap<>();
                    event.put("type", type);
                    event.put("meta", meta);
                    event.put("jobId", job);
                    event.put("clusterId", cluster);
                    event.put("tpuType", tpu);
                    for (String field : List.of("nodePoolName", "k8sJobName", "jobUid", "message", "reservation")) {
                        event.put(field, name);
                    }
                    for (String field : List.of(
                            "timeoutSeconds",
                            "failures",
                            "active",
                            "expected",
                            "ready",
                            "registered",
                            "remainingSlices",
                            "neededSlices")) {
                        event.put(field, field.length() % 2 == 0 ? n1 : n2);
                    }
                    event.put("timedOut", n1 instanceof Integer i && i % 2 == 0);
                    event.put("retryable", n2 instanceof Integer i && i % 2 == 0);
                    return event;
                });
        Arbitrary<byte[]> json = fields.map(event -> {
            try {
                return Json.mapper().writeValueAsBytes(event);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Arbitrary<byte[]> garbage = Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(30),
                Arbitraries.of(
                                "{}",
                                "[]",
                                "{\"type\":\"JobRunning\"",
                                "{\"type\":" + "[".repeat(2000) + "]".repeat(2000) + "}")
                        .map(String::getBytes));
        return Arbitraries.frequencyOf(Tuple.of(9, json), Tuple.of(1, garbage));
    }

    @Provide
    Arbitrary<List<byte[]>> batches() {
        return events().list().ofMinSize(1).ofMaxSize(5);
    }
}
