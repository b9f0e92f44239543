package io.falcon.local.contracts;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.falcon.events.Meta;
import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.decision.Decision;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The topics other teams subscribe to are documented as JSON Schemas in docs/contracts/. Real records, serialized
 * with the real serdes of the topic catalog, must validate; a record missing a required field must not; and every
 * field the serializer writes must be documented.
 */
class TopicContractsTest {
    private static final Path CONTRACTS =
            Path.of("..").toAbsolutePath().normalize().resolve("docs/contracts");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant AT = Instant.parse("2026-12-02T10:00:03.120Z");

    private static JsonNode schemaNode(String file) throws IOException {
        return JSON.readTree(Files.readString(CONTRACTS.resolve(file)));
    }

    private static JsonSchema schema(String file) throws IOException {
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schemaNode(file));
    }

    private static <V> JsonNode serialized(Topic<String, V> topic, V value) throws IOException {
        return JSON.readTree(topic.valueSerde().serializer().serialize(topic.name(), value));
    }

    private static void assertValid(JsonSchema schema, JsonNode record) {
        Set<ValidationMessage> errors = schema.validate(record);
        assertThat(errors).as(record.toString()).isEmpty();
    }

    /** Every field the serializer wrote is declared in the schema (so the document cannot fall behind the code). */
    private static void assertDocumented(JsonNode schema, JsonNode record, String where) {
        JsonNode properties = schema.get("properties");
        Iterator<Map.Entry<String, JsonNode>> fields = record.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            assertThat(properties.has(field.getKey()))
                    .as(where + "." + field.getKey() + " is documented")
                    .isTrue();
            if (field.getValue().isObject() && properties.get(field.getKey()).has("properties")) {
                assertDocumented(properties.get(field.getKey()), field.getValue(), where + "." + field.getKey());
            }
        }
    }

    private static List<String> enumOf(JsonNode schema, String property) {
        List<String> values = new ArrayList<>();
        schema.at("/properties/" + property + "/enum").forEach(v -> values.add(v.asText()));
        return values;
    }

    private static TaskStatus fullStatus() {
        return taskStatus("job-42")
                .version(4)
                .status(Status.Failed, Reason.NodePoolTimeout)
                .message("node pool not ready after 10m")
                .clusterId("cluster-a")
                .nodePoolName("falcon-job-42")
                .k8sJobName("falcon-job-42")
                .jobUid("uid-1")
                .dispatchedAt(AT.minusSeconds(600))
                .finishedAt(AT)
                .producer("scheduler-streams")
                .at(AT)
                .build();
    }

    @Test
    void taskStatusRecordsValidateAgainstTheSchema() throws IOException {
        JsonSchema schema = schema("task-status.schema.json");
        JsonNode schemaNode = schemaNode("task-status.schema.json");
        TaskStatus minimal = taskStatus("job-1")
                .status(Status.Pending, Reason.Waiting)
                .message("queue position #1")
                .producer("scheduler-streams")
                .at(AT)
                .build();
        TaskStatus aborted = taskStatus("job-2")
                .version(9)
                .status(Status.Aborted)
                .clusterId("cluster-b")
                .abortedAt(AT)
                .producer("scheduler-streams")
                .at(AT)
                .build();
        TaskStatus estimated = taskStatus("job-3")
                .status(Status.Pending, Reason.Waiting)
                .message("队列位置 #2,前面有 1 个任务 (alice: a),预计 10:20-10:35 开始")
                .estimatedStart(AT.plusSeconds(1200), AT.plusSeconds(2100))
                .producer("scheduler-streams")
                .at(AT)
                .build();
        for (TaskStatus status : List.of(minimal, fullStatus(), aborted, estimated)) {
            JsonNode record = serialized(Topics.TASK_STATUS, status);
            assertValid(schema, record);
            assertDocumented(schemaNode, record, "TaskStatus");
        }
        assertThat(enumOf(schemaNode, "status"))
                .containsExactlyElementsOf(
                        Arrays.stream(Status.values()).map(Enum::name).toList());
        assertThat(enumOf(schemaNode, "reason"))
                .containsExactlyElementsOf(
                        Arrays.stream(Reason.values()).map(Enum::name).toList());
    }

    @Test
    void decisionRecordsValidateAgainstTheSchema() throws IOException {
        JsonSchema schema = schema("decisions.schema.json");
        JsonNode schemaNode = schemaNode("decisions.schema.json");
        Decision placed = new Decision(
                Meta.of("scheduler-streams", AT),
                "job-7",
                "v6e",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed on c1: it holds an idle 2x4 node pool",
                Optional.of("c1"),
                Optional.of("2x4"),
                Optional.empty(),
                Optional.empty(),
                List.of(
                        new Decision.Candidate(
                                "c1",
                                "active",
                                3,
                                true,
                                Optional.of("res-1"),
                                Optional.of(AT.plusSeconds(600)),
                                Decision.Outcome.CHOSEN,
                                "holds an idle 2x4 node pool"),
                        new Decision.Candidate(
                                "c2",
                                "maintenance",
                                0,
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                Decision.Outcome.NOT_ACTIVE,
                                "in maintenance")),
                Optional.empty());
        Decision queued = new Decision(
                Meta.of("scheduler-streams", AT),
                "job-8",
                "v6e",
                Decision.Kind.POOL_CREATED,
                "node pool falcon-job-8 created (supply: flex-start)",
                Optional.of("c1"),
                Optional.of("2x4"),
                Optional.of("falcon-job-8"),
                Optional.of(io.falcon.events.executor.SupplyMode.FLEX_START),
                List.of(),
                Optional.of("c1/node-3/accel2/0x12 ISOLATED"));
        for (Decision decision : List.of(placed, queued)) {
            JsonNode record = serialized(Topics.DECISIONS, decision);
            assertValid(schema, record);
            assertDocumented(schemaNode, record, "Decision");
            record.get("candidates")
                    .forEach(c -> assertDocumented(schemaNode.at("/properties/candidates/items"), c, "Candidate"));
        }
        assertThat(enumOf(schemaNode, "kind"))
                .containsExactlyElementsOf(
                        Arrays.stream(Decision.Kind.values()).map(Enum::name).toList());
        assertThat(schemaNode.at("/properties/candidates/items/properties/outcome/enum"))
                .extracting(JsonNode::asText)
                .containsExactlyElementsOf(
                        Arrays.stream(Decision.Outcome.values()).map(Enum::name).toList());
        assertThat(enumOf(schemaNode, "supplyMode"))
                .containsExactlyElementsOf(Arrays.stream(io.falcon.events.executor.SupplyMode.values())
                        .map(io.falcon.events.executor.SupplyMode::wireName)
                        .toList());
    }

    @Test
    void aTaskStatusMissingARequiredFieldOrWithAnUnknownStatusFails() throws IOException {
        JsonSchema schema = schema("task-status.schema.json");
        ObjectNode record = (ObjectNode) serialized(Topics.TASK_STATUS, fullStatus());
        ObjectNode noJobId = record.deepCopy();
        noJobId.remove("jobId");
        assertThat(schema.validate(noJobId))
                .anySatisfy(m -> assertThat(m.getMessage()).contains("jobId"));
        ObjectNode noEventId = record.deepCopy();
        ((ObjectNode) noEventId.get("meta")).remove("eventId");
        assertThat(schema.validate(noEventId))
                .anySatisfy(m -> assertThat(m.getMessage()).contains("eventId"));
        ObjectNode badStatus = record.deepCopy();
        badStatus.put("status", "Done");
        assertThat(schema.validate(badStatus)).isNotEmpty();
    }

    @Test
    void isolationRecordsValidateAgainstTheSchema() throws IOException {
        JsonSchema schema = schema("isolation.schema.json");
        JsonNode schemaNode = schemaNode("isolation.schema.json");
        NodeIsolation isolation = new NodeIsolation(
                List.of("npu-3", "npu-5"),
                Map.of(
                        "npu-3",
                                List.of(new NodeIsolation.DeviceIsolation(
                                        "8C1F8609", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_000_000L)),
                        "npu-5",
                                List.of(
                                        new NodeIsolation.DeviceIsolation(
                                                "80E01801", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_000_500L),
                                        new NodeIsolation.DeviceIsolation(
                                                "8C1F8609", NodeIsolation.MANUALLY_SEPARATE_NPU, 1_767_600_001_000L))));
        JsonNode record = serialized(Topics.ISOLATION, isolation);
        assertValid(schema, record);
        assertDocumented(schemaNode, record, "NodeIsolation");
        assertValid(schema, serialized(Topics.ISOLATION, new NodeIsolation(List.of(), Map.of())));

        ObjectNode noTotal = ((ObjectNode) record).deepCopy();
        noTotal.remove("Total");
        assertThat(schema.validate(noTotal))
                .anySatisfy(m -> assertThat(m.getMessage()).contains("Total"));
        ObjectNode noTime = ((ObjectNode) record).deepCopy();
        ((ObjectNode) noTime.at("/Detail/npu-3/0")).remove("LastSeparateTime");
        assertThat(schema.validate(noTime))
                .anySatisfy(m -> assertThat(m.getMessage()).contains("LastSeparateTime"));
    }

    @Test
    void faultVerdictRecordsValidateAgainstTheSchema() throws IOException {
        JsonSchema schema = schema("fault-verdicts.schema.json");
        JsonNode schemaNode = schemaNode("fault-verdicts.schema.json");
        FaultVerdict isolated = new FaultVerdict(
                Meta.of("fault-streams", AT),
                "cluster-a",
                "node-1",
                "npu-3",
                "8C1F8609",
                Optional.of("job-42"),
                AT.toEpochMilli(),
                FaultVerdict.Outcome.ISOLATED,
                new FaultVerdict.Evidence(
                        3,
                        List.of(),
                        0,
                        List.of(AT.toEpochMilli() - 2000, AT.toEpochMilli()),
                        "3rd fault 8C1F8609 on node-1/npu-3 within 24h: isolated"));
        FaultVerdict software = new FaultVerdict(
                Meta.of("fault-streams", AT),
                "cluster-a",
                "node-2",
                "npu-0",
                "80E01801",
                Optional.empty(),
                AT.toEpochMilli(),
                FaultVerdict.Outcome.SOFTWARE_FAULT,
                new FaultVerdict.Evidence(
                        3,
                        List.of("node-2/npu-1", "node-3/npu-0"),
                        2,
                        List.of(),
                        "same code on 2 other devices of the job within 30s: software fault"));
        for (FaultVerdict verdict : List.of(isolated, software)) {
            JsonNode record = serialized(Topics.FAULT_VERDICTS, verdict);
            assertValid(schema, record);
            assertDocumented(schemaNode, record, "FaultVerdict");
        }
        assertThat(enumOf(schemaNode, "outcome"))
                .containsExactlyElementsOf(Arrays.stream(FaultVerdict.Outcome.values())
                        .map(Enum::name)
                        .toList());

        ObjectNode noEvidence = (ObjectNode) serialized(Topics.FAULT_VERDICTS, isolated);
        noEvidence.remove("evidence");
        assertThat(schema.validate(noEvidence))
                .anySatisfy(m -> assertThat(m.getMessage()).contains("evidence"));
    }
}
