package io.falcon.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** Commands on the real topic (embedded KRaft broker) yield the events on the events topic. */
class ExecutorKafkaIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void commandsOnTheTopicYieldEventsOnTheEventsTopic() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        kafka.createTopics(3, Topics.EXECUTOR_COMMANDS.name(), Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name(), Topics.CDC_CLUSTERS.name());
        String run = SharedInfra.uniqueName("exec").replace('_', '-');
        String jobId = "job-" + run;
        ClusterTarget cluster = new ClusterTarget("cluster-" + run, "edge-a", "proj-a", "us-central1", "v7x",
                "bucket-a");

        try (FleetSim sim = FleetSim.start(FleetSimConfig.of(
                EdgeClusterConfig.of("proj-a", "us-central1", "edge-a", "tpu7x")));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
                KafkaConsumer<String, byte[]> events = consumer(kafka, Topics.EXECUTOR_EVENTS.name());
                KafkaConsumer<String, byte[]> deadLetters = consumer(kafka, Topics.DEAD_LETTER.name())) {
            Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(kafka.bootstrapServers(),
                    sim.gkeEndpoint(), sim.computeEndpoint()));
            settings.put(ExecutorKeys.GROUP_ID.key(), "executor-" + run);
            settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
            try (ExecutorApp app = new ExecutorApp(ExecutorConfig.from(settings)).start()) {
                String pool = "falcon-" + jobId.substring(0, Math.min(20, jobId.length())).replaceAll("-$", "");
                send(producer, cluster, new ExecutorCommand.EnsureNodePool(Meta.of("test", Instant.now()), jobId,
                        cluster, pool, "v7x", "2x4", SupplyMode.ON_DEMAND, Optional.empty()));
                producer.send(new ProducerRecord<>(Topics.EXECUTOR_COMMANDS.name(),
                        cluster.clusterId().getBytes(StandardCharsets.UTF_8),
                        ("{\"type\":\"Nonsense\",\"run\":\"" + run + "\"}").getBytes(StandardCharsets.UTF_8)));
                producer.flush();

                ConsumerRecord<String, byte[]> ready = await(events, r -> event(r) instanceof ExecutorEvent.NodePoolReady e
                        && e.jobId().equals(jobId));
                assertThat(ready.key()).isEqualTo("v7x");

                DeadLetter letter = Topics.DEAD_LETTER.valueSerde().deserializer().deserialize("",
                        await(deadLetters, r -> new String(Topics.DEAD_LETTER.valueSerde().deserializer()
                                .deserialize("", r.value()).payloadBase64().isEmpty() ? new byte[0]
                                : java.util.Base64.getDecoder().decode(Topics.DEAD_LETTER.valueSerde().deserializer()
                                        .deserialize("", r.value()).payloadBase64()), StandardCharsets.UTF_8)
                                .contains(run)).value());
                assertThat(letter.reason()).contains("cannot decode");
                assertThat(letter.sourceTopic()).isEqualTo(Topics.EXECUTOR_COMMANDS.name());

                String k8sJob = "falcon-" + run;
                send(producer, cluster, new ExecutorCommand.EnsureJob(Meta.of("test", Instant.now()), jobId, cluster,
                        pool, k8sJob, "v7x", "2x4", new JobSpec("img:1", List.of("python", "train.py"), List.of(),
                                Map.of("FALCON_SIM_DURATION_SECONDS", "0.5"))));
                List<Class<?>> seen = new ArrayList<>();
                await(events, r -> {
                    ExecutorEvent e = event(r);
                    if (e.jobId().equals(jobId)) {
                        seen.add(e.getClass());
                    }
                    return e instanceof ExecutorEvent.JobSucceeded && e.jobId().equals(jobId);
                });
                assertThat(seen).containsSubsequence(ExecutorEvent.JobSubmitted.class, ExecutorEvent.JobRunning.class,
                        ExecutorEvent.JobSucceeded.class);

                send(producer, cluster, new ExecutorCommand.EnsureJobDeleted(Meta.of("test", Instant.now()), jobId,
                        cluster, k8sJob));
                send(producer, cluster, new ExecutorCommand.EnsureNodePoolDeleted(Meta.of("test", Instant.now()),
                        jobId, cluster, pool));
                await(events, r -> event(r) instanceof ExecutorEvent.JobDeleted e && e.jobId().equals(jobId));
                await(events, r -> event(r) instanceof ExecutorEvent.NodePoolDeleted e && e.jobId().equals(jobId));
            }
        }
    }

    private static ExecutorEvent event(ConsumerRecord<String, byte[]> r) {
        return Topics.EXECUTOR_EVENTS.valueSerde().deserializer().deserialize(r.topic(), r.value());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, ClusterTarget cluster,
            ExecutorCommand command) {
        var topic = Topics.EXECUTOR_COMMANDS;
        producer.send(new ProducerRecord<>(topic.name(), cluster.clusterId().getBytes(StandardCharsets.UTF_8),
                topic.valueSerde().serializer().serialize(topic.name(), command)));
        producer.flush();
    }

    private static KafkaConsumer<String, byte[]> consumer(EmbeddedKafka kafka, String topic) {
        KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedInfra.uniqueName("reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        c.subscribe(List.of(topic));
        return c;
    }

    private static ConsumerRecord<String, byte[]> await(KafkaConsumer<String, byte[]> consumer,
            Predicate<ConsumerRecord<String, byte[]>> match) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (match.test(r)) {
                    return r;
                }
            }
        }
        throw new AssertionError("no matching record within " + WAIT);
    }
}
