package io.falcon.bench.executor;

import io.falcon.events.Topics;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.ExecutorConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One phase: a fresh executor (its own consumer group, starting at the end of the command topic, so that no earlier
 * phase's command reaches it; fresh fakes; every executor object built anew) and the scheduler's part, played here:
 * the phase's EnsureNodePool commands in one burst, then each job's EnsureJob as soon as its NodePoolReady is read,
 * until every job's JobSubmitted is read (or it failed, or the phase timed out).
 */
final class ThroughputPhase {
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final String bootstrapServers;
    private final ThroughputOptions options;
    private final ThroughputOptions.PhaseKind kind;
    private final String tag;
    private final PrintStream progress;

    /**
     * @param tag this phase's name in this run: its job ids, consumer group and client ids start with it
     */
    ThroughputPhase(
            String bootstrapServers,
            ThroughputOptions options,
            ThroughputOptions.PhaseKind kind,
            String tag,
            PrintStream progress) {
        this.bootstrapServers = bootstrapServers;
        this.options = options;
        this.kind = kind;
        this.tag = tag;
        this.progress = progress;
    }

    /** The executor's settings for this phase, from the catalog: only what the phase sets differs from a default. */
    ExecutorConfig config() {
        Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(
                bootstrapServers, "gke.unused.invalid:443", "http://compute.unused.invalid"));
        settings.put(ExecutorKeys.GROUP_ID.key(), "executor-" + tag);
        settings.put(ExecutorKeys.PRODUCER_NAME.key(), "executor-" + tag);
        settings.put(ExecutorKeys.WATCH_CLUSTER_REGISTRY.key(), "false");
        settings.put(ExecutorKeys.POLL_INTERVAL.key(), options.pollInterval().toMillis() + "ms");
        if (kind == ThroughputOptions.PhaseKind.BASELINE) {
            settings.put(ExecutorKeys.COMMAND_LANES.key(), "1");
            settings.put(ExecutorKeys.TRACKER_THREADS.key(), "1");
        } else {
            options.lanes().ifPresent(lanes -> settings.put(ExecutorKeys.COMMAND_LANES.key(), Integer.toString(lanes)));
            options.stepThreads()
                    .ifPresent(threads -> settings.put(ExecutorKeys.TRACKER_THREADS.key(), Integer.toString(threads)));
        }
        return ExecutorConfig.from(settings);
    }

    int jobCount() {
        return kind == ThroughputOptions.PhaseKind.BASELINE ? options.baselineJobs() : options.jobs();
    }

    PhaseResult run() throws InterruptedException {
        ExecutorConfig config = config();
        List<PlannedJob> plan = PlannedJob.plan(tag, jobCount(), options.clusters(), config.installation());
        Map<String, PlannedJob> planned =
                plan.stream().collect(Collectors.toMap(PlannedJob::jobId, Function.identity()));
        ApiCalls calls = new ApiCalls();
        FakeGke gke = new FakeGke(options.latency(), config.scaleDown(), config.ownership(), calls);
        FakeEdge edges = new FakeEdge(options.latency(), config.ownership(), calls, gke);
        startGroupAtEndOfCommands(config.groupId());
        progress.printf(
                "phase %s: %d jobs, %d command lanes, %d pool step threads (consumer group %s)%n",
                kind.wireName, plan.size(), config.commandLanes(), config.trackerThreads(), config.groupId());

        Map<String, Long> producedNanos = new HashMap<>();
        Map<String, Long> poolReadyNanos = new HashMap<>();
        Map<String, Long> ensureJobNanos = new HashMap<>();
        Map<String, Long> submittedNanos = new HashMap<>();
        Map<String, String> failures = new HashMap<>();
        CpuSample before;
        CpuSample after;
        long firstProduced;
        try (KafkaConsumer<byte[], byte[]> events = eventReader();
                KafkaProducer<byte[], byte[]> commands = commandProducer();
                ExecutorUnderTest executor =
                        ExecutorUnderTest.start(config, gke, edges, options.partitions(), JOIN_TIMEOUT)) {
            before = CpuSample.take(config.groupId());
            firstProduced = System.nanoTime();
            for (PlannedJob job : plan) {
                producedNanos.put(job.jobId(), System.nanoTime());
                send(commands, job, job.ensureNodePool(options.supply(), Instant.now()));
            }
            long deadline = firstProduced + options.phaseTimeout().toNanos();
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (submittedNanos.size() + failures.size() < plan.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : events.poll(Duration.ofMillis(50))) {
                    ExecutorEvent event = Topics.EXECUTOR_EVENTS
                            .valueSerde()
                            .deserializer()
                            .deserialize(record.topic(), record.value());
                    Optional<PlannedJob> about = jobOf(event, planned);
                    if (about.isEmpty()) {
                        continue; // an inventory, or no job of this phase
                    }
                    PlannedJob job = about.get();
                    if (event instanceof ExecutorEvent.NodePoolReady && !poolReadyNanos.containsKey(job.jobId())) {
                        poolReadyNanos.put(job.jobId(), System.nanoTime());
                        ensureJobNanos.put(job.jobId(), System.nanoTime());
                        send(commands, job, job.ensureJob(Instant.now()));
                    } else if (event instanceof ExecutorEvent.JobSubmitted) {
                        submittedNanos.putIfAbsent(job.jobId(), System.nanoTime());
                    } else if (event instanceof ExecutorEvent.NodePoolCreateFailed failed) {
                        failures.putIfAbsent(job.jobId(), "NodePoolCreateFailed: " + failed.message());
                    } else if (event instanceof ExecutorEvent.JobSubmitFailed failed) {
                        failures.putIfAbsent(job.jobId(), "JobSubmitFailed: " + failed.message());
                    } else if (event instanceof ExecutorEvent.ReservationShort) {
                        failures.putIfAbsent(job.jobId(), "ReservationShort");
                    }
                }
                if (System.nanoTime() > nextReport) {
                    nextReport += TimeUnit.SECONDS.toNanos(10);
                    progress.printf(
                            "phase %s: %.0f s: %d pools ready, %d Jobs created of %d, %d failed, %d pools in flight%n",
                            kind.wireName,
                            (System.nanoTime() - firstProduced) / 1e9,
                            poolReadyNanos.size(),
                            submittedNanos.size(),
                            plan.size(),
                            failures.size(),
                            executor.poolsInFlight());
                }
            }
            after = CpuSample.take(config.groupId());
        }

        Map<String, Long> commandToJob = new HashMap<>();
        Map<String, Long> ensureJobToJob = new HashMap<>();
        long lastCreated = firstProduced;
        for (String jobId : submittedNanos.keySet()) {
            long created = edges.jobCreatedNanos(jobId)
                    .orElseThrow(() -> new IllegalStateException(
                            "JobSubmitted for " + jobId + " without a Job created in the fake Kubernetes API"));
            commandToJob.put(jobId, created - producedNanos.get(jobId));
            ensureJobToJob.put(jobId, created - ensureJobNanos.get(jobId));
            lastCreated = Math.max(lastCreated, created);
        }
        Map<String, Long> commandToPoolReady = new HashMap<>();
        poolReadyNanos.forEach((jobId, ready) -> commandToPoolReady.put(jobId, ready - producedNanos.get(jobId)));
        PhaseResult result = new PhaseResult(
                kind,
                config.commandLanes(),
                config.trackerThreads(),
                plan.size(),
                submittedNanos.size(),
                failures,
                Duration.ofNanos(lastCreated - firstProduced),
                Percentiles.of(commandToJob.values()),
                Percentiles.of(commandToPoolReady.values()),
                Percentiles.of(ensureJobToJob.values()),
                after.since(before),
                calls.snapshot());
        progress.printf(
                "phase %s: %d of %d Jobs created in %.1f s (%.1f jobs/s), %d failed%s%n",
                kind.wireName,
                result.jobsCreated(),
                result.jobs(),
                result.span().toMillis() / 1e3,
                result.jobsPerSecond(),
                failures.size(),
                failures.values().stream().findFirst().map(f -> ", e.g. " + f).orElse(""));
        return result;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, PlannedJob job, ExecutorCommand command) {
        var topic = Topics.EXECUTOR_COMMANDS;
        String key = job.cluster().clusterId();
        producer.send(new ProducerRecord<>(
                topic.name(),
                topic.keySerde().serializer().serialize(topic.name(), key),
                topic.valueSerde().serializer().serialize(topic.name(), command)));
    }

    /** The scheduler's side of the command topic: an idempotent producer, as every Falcon producer. */
    private KafkaProducer<byte[], byte[]> commandProducer() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG,
                "bench-scheduler-" + tag + "-commands",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class));
    }

    /** Every partition of the event topic, read from its end as it is now (this phase's events only). */
    private KafkaConsumer<byte[], byte[]> eventReader() {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG,
                "bench-scheduler-" + tag + "-events",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class));
        List<TopicPartition> partitions = partitions(Topics.EXECUTOR_EVENTS.name());
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolves the end now, before any command is produced
        return consumer;
    }

    /**
     * Commits the new group's offsets at the current end of the command topic, so that the phase's executor reads its
     * own commands only (the executor's consumer resets to the earliest offset when its group has none).
     */
    private void startGroupAtEndOfCommands(String groupId) throws InterruptedException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            partitions(Topics.EXECUTOR_COMMANDS.name()).forEach(p -> latest.put(p, OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(latest).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
            ends.forEach((partition, end) -> start.put(partition, new OffsetAndMetadata(end.offset())));
            admin.alterConsumerGroupOffsets(groupId, start).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot start consumer group " + groupId + " at the end of the commands", e);
        }
    }

    private List<TopicPartition> partitions(String topic) {
        return IntStream.range(0, options.partitions())
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
    }

    /** The job's planned record, when the event is about a job of this phase. */
    private static Optional<PlannedJob> jobOf(ExecutorEvent event, Map<String, PlannedJob> planned) {
        return Optional.ofNullable(event).map(ExecutorEvent::jobId).map(planned::get);
    }
}
