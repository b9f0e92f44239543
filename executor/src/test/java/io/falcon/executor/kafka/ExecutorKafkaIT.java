package io.falcon.executor.kafka;

import static io.falcon.testkit.builders.ExecutorCommandBuilder.executorCommand;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.executor.ExecutorApp;
import io.falcon.executor.ExecutorConfig;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.testkit.builders.ExecutorCommandBuilder;
import io.falcon.testkit.kafka.DeadLetters;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Commands on the real topic (embedded KRaft broker) yield the events on the events topic. */
class ExecutorKafkaIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void commandsOnTheTopicYieldEventsOnTheEventsTopic() throws Exception {
        EmbeddedKafka kafka = SharedInfra.kafka();
        kafka.createTopics(
                3,
                Topics.EXECUTOR_COMMANDS.name(),
                Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name(),
                Topics.CDC_CLUSTERS.name());
        String run = SharedInfra.uniqueName("exec").replace('_', '-');
        String jobId = "job-" + run;
        ClusterTarget cluster =
                new ClusterTarget("cluster-" + run, "edge-a", "proj-a", "us-central1", "v7x", "bucket-a");

        try (FleetSim sim = FleetSim.start(
                        FleetSimConfig.of(EdgeClusterConfig.of("proj-a", "us-central1", "edge-a", "tpu7x")));
                TopicProducer<String, ExecutorCommand> commands =
                        TopicProducer.to(kafka.bootstrapServers(), Topics.EXECUTOR_COMMANDS);
                TopicReader<String, ExecutorEvent> events =
                        TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.EXECUTOR_EVENTS);
                TopicReader<String, DeadLetter> deadLetters = DeadLetters.reader(kafka.bootstrapServers())) {
            Map<String, String> settings = new HashMap<>(ExecutorConfig.simulatorDefaults(
                    kafka.bootstrapServers(), sim.gkeEndpoint(), sim.computeEndpoint()));
            settings.put(ExecutorKeys.GROUP_ID.key(), "executor-" + run);
            settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
            try (ExecutorApp app = new ExecutorApp(ExecutorConfig.from(settings)).start()) {
                String pool = "falcon-"
                        + jobId.substring(0, Math.min(20, jobId.length())).replaceAll("-$", "");
                String k8sJob = "falcon-" + run;
                ExecutorCommandBuilder command = executorCommand(jobId)
                        .cluster(cluster)
                        .topology("2x2x2")
                        .nodePoolName(pool)
                        .k8sJobName(k8sJob)
                        .producer("test")
                        .at(Instant.now());
                commands.send(cluster.clusterId(), command.ensureNodePool());
                commands.sendRaw(
                        cluster.clusterId(),
                        ("{\"type\":\"Nonsense\",\"run\":\"" + run + "\"}").getBytes(StandardCharsets.UTF_8));

                ConsumerRecord<String, ExecutorEvent> ready = events.awaitRecord(
                        "NodePoolReady of " + jobId,
                        WAIT,
                        r -> r.value() instanceof ExecutorEvent.NodePoolReady e
                                && e.jobId().equals(jobId));
                assertThat(ready.key()).isEqualTo("v7x");

                DeadLetter letter = deadLetters.awaitValue(
                        "the dead letter of the Nonsense command",
                        WAIT,
                        l -> DeadLetters.payloadText(l).contains(run));
                assertThat(letter.reason()).contains("cannot decode");
                assertThat(letter.sourceTopic()).isEqualTo(Topics.EXECUTOR_COMMANDS.name());

                commands.send(
                        cluster.clusterId(),
                        command.spec(new JobSpec(
                                        "img:1",
                                        List.of("python", "train.py"),
                                        List.of(),
                                        Map.of("FALCON_SIM_DURATION_SECONDS", "0.5")))
                                .ensureJob());
                events.awaitValue(
                        "JobSucceeded of " + jobId,
                        WAIT,
                        e -> e instanceof ExecutorEvent.JobSucceeded
                                && e.jobId().equals(jobId));
                List<Class<?>> seen = events.values().stream()
                        .filter(e -> e.jobId().equals(jobId))
                        .<Class<?>>map(ExecutorEvent::getClass)
                        .toList();
                // The Job's watch may see its pod running before the create call returns, so JobRunning
                // may precede JobSubmitted (the scheduler takes either first); both precede the end.
                assertThat(seen)
                        .containsSubsequence(ExecutorEvent.JobSubmitted.class, ExecutorEvent.JobSucceeded.class)
                        .containsSubsequence(ExecutorEvent.JobRunning.class, ExecutorEvent.JobSucceeded.class);

                commands.send(cluster.clusterId(), command.ensureJobDeleted());
                commands.send(cluster.clusterId(), command.ensureNodePoolDeleted());
                events.awaitValue(
                        "JobDeleted of " + jobId,
                        WAIT,
                        e -> e instanceof ExecutorEvent.JobDeleted && e.jobId().equals(jobId));
                events.awaitValue(
                        "NodePoolDeleted of " + jobId,
                        WAIT,
                        e -> e instanceof ExecutorEvent.NodePoolDeleted
                                && e.jobId().equals(jobId));
            }
        }
    }
}
