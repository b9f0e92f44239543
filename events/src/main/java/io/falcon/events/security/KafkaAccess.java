package io.falcon.events.security;

import io.falcon.events.Topic;
import io.falcon.events.Topics;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.config.StatusSinkKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Least privilege on Kafka: for each Falcon component, exactly the topics it reads and writes, the consumer group it
 * commits in and the transactional ids it uses, as ALLOW grants for its own principal (everything else is refused by
 * a broker with an authorizer). Derived from the topic catalog and the code that uses each topic; `falcon acls`
 * prints or applies it and docs/deploy.md shows it.
 *
 * <p>No IDEMPOTENT_WRITE: since Kafka 3.0 an idempotent producer only needs WRITE on a topic (KIP-679).
 */
public final class KafkaAccess {
    private KafkaAccess() {}

    /** Kafka's resource types used here (the names are Kafka's). */
    public enum Resource {
        TOPIC,
        GROUP,
        TRANSACTIONAL_ID
    }

    /** LITERAL: this very name; PREFIXED: every name starting with it (Kafka Streams' internal topics). */
    public enum Pattern {
        LITERAL,
        PREFIXED
    }

    /** Kafka's ACL operations used here (the names are Kafka's). */
    public enum Operation {
        READ,
        WRITE,
        CREATE,
        DELETE,
        DESCRIBE,
        DESCRIBE_CONFIGS
    }

    /** One ALLOW entry: the principal may do the operation on the resource. */
    public record Grant(Resource resource, String name, Pattern pattern, Operation operation) {}

    /** What one component (or role) may do, and why, for the documentation. */
    public record Access(String component, String principal, List<Grant> grants) {
        public Access {
            grants = List.copyOf(grants);
        }
    }

    /**
     * The names that the settings can change: Kafka Streams application ids (its group, internal topic prefix and
     * transactional id prefix), consumer groups and cdc-ingest's own topics.
     */
    public record Names(
            String schedulerApplicationId,
            String faultsApplicationId,
            String executorGroup,
            String sinkGroup,
            String cdcEngineName,
            String cdcOffsetsTopic,
            String cdcSchemaHistoryTopic) {

        /** The catalog's defaults, as docker-compose and the k8s manifests use them. */
        public static final Names DEFAULTS = new Names(
                SchedulerKeys.APPLICATION_ID.defaultValue(),
                FaultStreamsKeys.APPLICATION_ID.defaultValue(),
                ExecutorKeys.GROUP_ID.defaultValue(),
                StatusSinkKeys.GROUP_ID.defaultValue(),
                CdcIngestKeys.ENGINE_NAME.defaultValue(),
                CdcIngestKeys.OFFSETS_TOPIC.defaultValue(),
                CdcIngestKeys.SCHEMA_HISTORY_TOPIC.defaultValue());
    }

    /** The components in documentation order; "topics-init" is `falcon topics create`, "cli" the operators' CLI. */
    public static final List<String> COMPONENTS = List.of(
            "cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "console", "cli", "topics-init");

    /** The principal a component runs as unless told otherwise: User:falcon-COMPONENT (its SASL user name). */
    public static String defaultPrincipal(String component) {
        return "User:falcon-" + component;
    }

    /** The consumer group of Debezium's schema history consumer (cdc-ingest sets it, see EngineProperties). */
    public static String schemaHistoryGroup(String cdcEngineName) {
        return cdcEngineName + "-schemahistory";
    }

    /** Every component's grants, with the principals given (missing ones: {@link #defaultPrincipal}). */
    public static List<Access> plan(Names names, Map<String, String> principals) {
        Function<String, String> principal = c -> principals.getOrDefault(c, defaultPrincipal(c));
        List<Access> plan = new ArrayList<>();

        List<Grant> cdc = new ArrayList<>();
        writes(cdc, Topics.CDC_JOBS, Topics.CDC_CLUSTERS, Topics.SCHEDULER_INPUT, Topics.DEAD_LETTER);
        // Debezium's offset store and schema history: created at the first start, checked (cleanup policy), read back
        for (String own : List.of(names.cdcOffsetsTopic(), names.cdcSchemaHistoryTopic())) {
            for (Operation op :
                    List.of(Operation.READ, Operation.WRITE, Operation.CREATE, Operation.DESCRIBE_CONFIGS)) {
                cdc.add(new Grant(Resource.TOPIC, own, Pattern.LITERAL, op));
            }
        }
        cdc.add(new Grant(Resource.GROUP, schemaHistoryGroup(names.cdcEngineName()), Pattern.LITERAL, Operation.READ));
        plan.add(new Access("cdc-ingest", principal.apply("cdc-ingest"), cdc));

        List<Grant> scheduler = new ArrayList<>();
        reads(
                scheduler,
                Topics.SCHEDULER_INPUT,
                Topics.EXECUTOR_EVENTS,
                Topics.FAULT_VERDICTS,
                Topics.SCHEDULER_CONTROLS);
        writes(
                scheduler,
                Topics.SCHEDULER_INPUT,
                Topics.EXECUTOR_COMMANDS,
                Topics.TASK_STATUS,
                Topics.DECISIONS,
                Topics.DEAD_LETTER);
        streamsApplication(scheduler, names.schedulerApplicationId());
        plan.add(new Access("scheduler", principal.apply("scheduler"), scheduler));

        List<Grant> executor = new ArrayList<>();
        reads(executor, Topics.EXECUTOR_COMMANDS, Topics.CDC_CLUSTERS, Topics.ISOLATION);
        writes(executor, Topics.EXECUTOR_EVENTS, Topics.DEAD_LETTER, Topics.ISOLATION_COMMANDS);
        executor.add(new Grant(Resource.GROUP, names.executorGroup(), Pattern.LITERAL, Operation.READ));
        plan.add(new Access("executor", principal.apply("executor"), executor));

        List<Grant> sink = new ArrayList<>();
        reads(sink, Topics.TASK_STATUS);
        writes(sink, Topics.DEAD_LETTER);
        sink.add(new Grant(Resource.GROUP, names.sinkGroup(), Pattern.LITERAL, Operation.READ));
        plan.add(new Access("status-sink", principal.apply("status-sink"), sink));

        List<Grant> faults = new ArrayList<>();
        reads(faults, Topics.DEVICE_FAULTS, Topics.FAULT_COUNTING, Topics.ISOLATION_COMMANDS, Topics.ISOLATION_POLICY);
        writes(
                faults,
                Topics.FAULT_COUNTING,
                Topics.FAULT_VERDICTS,
                Topics.ISOLATION,
                Topics.ISOLATION_POLICY,
                Topics.DEAD_LETTER);
        streamsApplication(faults, names.faultsApplicationId());
        plan.add(new Access("fault-streams", principal.apply("fault-streams"), faults));

        // the console reads (assigned, no group: it commits nothing, so it needs no group and writes nothing)
        List<Grant> console = new ArrayList<>();
        reads(
                console,
                Topics.TASK_STATUS,
                Topics.DECISIONS,
                Topics.ISOLATION,
                Topics.FAULT_VERDICTS,
                Topics.EXECUTOR_EVENTS);
        plan.add(new Access("console", principal.apply("console"), console));

        // watch / explain / isolation list / retries read (assigned, no group); faults inject, isolation release and
        // the retry switch write
        List<Grant> cli = new ArrayList<>();
        reads(cli, Topics.TASK_STATUS, Topics.DECISIONS, Topics.ISOLATION, Topics.SCHEDULER_CONTROLS);
        writes(cli, Topics.DEVICE_FAULTS, Topics.ISOLATION_COMMANDS, Topics.SCHEDULER_CONTROLS);
        plan.add(new Access("cli", principal.apply("cli"), cli));

        List<Grant> init = new ArrayList<>();
        for (Topic<?, ?> topic : Topics.all()) {
            init.add(new Grant(Resource.TOPIC, topic.name(), Pattern.LITERAL, Operation.CREATE));
            init.add(new Grant(Resource.TOPIC, topic.name(), Pattern.LITERAL, Operation.DESCRIBE));
        }
        plan.add(new Access("topics-init", principal.apply("topics-init"), init));
        return List.copyOf(plan);
    }

    private static void reads(List<Grant> grants, Topic<?, ?>... topics) {
        for (Topic<?, ?> topic : topics) {
            grants.add(new Grant(Resource.TOPIC, topic.name(), Pattern.LITERAL, Operation.READ));
        }
    }

    private static void writes(List<Grant> grants, Topic<?, ?>... topics) {
        for (Topic<?, ?> topic : topics) {
            grants.add(new Grant(Resource.TOPIC, topic.name(), Pattern.LITERAL, Operation.WRITE));
        }
    }

    /**
     * A Kafka Streams application with exactly_once_v2: its group is the application id, its changelog and
     * repartition topics start with "APPLICATION_ID-" (created, read, written, purged and checked by Streams), and so
     * do its transactional ids.
     */
    private static void streamsApplication(List<Grant> grants, String applicationId) {
        String prefix = applicationId + "-";
        for (Operation op : List.of(
                Operation.CREATE,
                Operation.READ,
                Operation.WRITE,
                Operation.DELETE,
                Operation.DESCRIBE,
                Operation.DESCRIBE_CONFIGS)) {
            grants.add(new Grant(Resource.TOPIC, prefix, Pattern.PREFIXED, op));
        }
        grants.add(new Grant(Resource.GROUP, applicationId, Pattern.LITERAL, Operation.READ));
        grants.add(new Grant(Resource.TRANSACTIONAL_ID, prefix, Pattern.PREFIXED, Operation.WRITE));
        grants.add(new Grant(Resource.TRANSACTIONAL_ID, prefix, Pattern.PREFIXED, Operation.DESCRIBE));
    }

    /**
     * docs/deploy.md's table: one row per component; READ and WRITE on topics in their columns, the rest grouped
     * as "RESOURCE names: operations" (names ending in * are prefixes).
     */
    public static String markdown(List<Access> plan) {
        StringBuilder out = new StringBuilder();
        out.append("| component (principal) | reads topics | writes topics | other grants |\n");
        out.append("|---|---|---|---|\n");
        for (Access access : plan) {
            List<String> reads = new ArrayList<>();
            List<String> writes = new ArrayList<>();
            // resource and name -> operations, then operations -> names, in the order of the plan
            Map<String, List<String>> opsByResource = new java.util.LinkedHashMap<>();
            for (Grant g : access.grants()) {
                String name = "`" + g.name() + (g.pattern() == Pattern.PREFIXED ? "*" : "") + "`";
                if (g.resource() == Resource.TOPIC && g.operation() == Operation.READ) {
                    reads.add(name);
                } else if (g.resource() == Resource.TOPIC && g.operation() == Operation.WRITE) {
                    writes.add(name);
                } else {
                    opsByResource
                            .computeIfAbsent(g.resource() + "\t" + name, k -> new ArrayList<>())
                            .add(g.operation().name());
                }
            }
            Map<String, List<String>> namesByOps = new java.util.LinkedHashMap<>();
            opsByResource.forEach((key, ops) -> {
                String[] parts = key.split("\t");
                namesByOps
                        .computeIfAbsent(parts[0] + "\t" + String.join(", ", ops), k -> new ArrayList<>())
                        .add(parts[1]);
            });
            List<String> other = new ArrayList<>();
            namesByOps.forEach((key, resourceNames) -> {
                String[] parts = key.split("\t");
                other.add(parts[0] + " " + String.join(", ", resourceNames) + ": " + parts[1]);
            });
            out.append("| ")
                    .append(access.component())
                    .append(" (`")
                    .append(access.principal())
                    .append("`) | ")
                    .append(String.join(", ", reads))
                    .append(" | ")
                    .append(String.join(", ", writes))
                    .append(" | ")
                    .append(String.join("; ", other))
                    .append(" |\n");
        }
        return out.toString();
    }
}
