package io.falcon.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.embedded.SharedInfra;
import io.falcon.events.Meta;
import io.falcon.events.ResourceNames;
import io.falcon.events.TestRows;
import io.falcon.events.TopicProvisioner;
import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.Reason;
import io.falcon.events.status.TaskStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The scheduler's queues survive a restart that must rebuild its stores from the changelog topics. */
class SchedulerRestartIT {
    private int mark;

    @Test
    void queuesAndRoundRobinAreIntactAfterARestartFromTheChangelog() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("scheduler");
        Path stateDir = Files.createTempDirectory("scheduler-restart");
        Map<String, String> settings = Map.of("falcon.kafka.bootstrap-servers", bootstrap,
                "falcon.kafka.replication-factor", "1", "falcon.scheduler.application-id", appId,
                "falcon.scheduler.state-dir", stateDir.toString(), "falcon.scheduler.session-timeout", "6s");

        try (KafkaProducer<String, byte[]> producer = producer(bootstrap);
                KafkaConsumer<String, TaskStatus> statuses = statusConsumer(bootstrap, appId)) {
            List<TaskStatus> seen = new ArrayList<>();
            try (SchedulerApp app = new SchedulerApp(SchedulerConfig.from(settings)).start()) {
                sendRouted(producer, (
                        TestRows.clusterInserted(TestRows.cluster(appId + "-c1", "v5p", "active"))));
                // r1 first, so that the cluster is known before the others arrive through other partitions
                String r1 = appId + "-r1";
                sendRouted(producer, (
                        TestRows.inserted(TestRows.job(r1, "alice", "v5p", "2x2x1", TestRows.SPEC))));
                await(statuses, seen, s -> s.jobId().equals(r1) && s.reason().filter(Reason.Provisioning::equals)
                        .isPresent());
                for (String[] job : new String[][] {{"r2", "alice"}, {"r3", "bob"}}) {
                    String id = appId + "-" + job[0];
                    sendRouted(producer, (
                            TestRows.inserted(TestRows.job(id, job[1], "v5p", "2x2x1", TestRows.SPEC))));
                }
                // alice was served last, so bob's r3 is next (#2 behind r1), alice's r2 after it
                await(statuses, seen, s -> s.jobId().equals(appId + "-r2") && s.message().startsWith("队列位置 #3"));
            }
            deleteRecursively(stateDir); // the new instance must restore everything from the changelog topics
            mark = seen.size();

            try (SchedulerApp app = new SchedulerApp(SchedulerConfig.from(settings)).start()) {
                // a redelivered insert of a known job changes nothing
                sendRouted(producer, (
                        TestRows.inserted(TestRows.job(appId + "-r1", "alice", "v5p", "2x2x1", TestRows.SPEC))));
                Meta meta = Meta.of("executor", Instant.now());
                String c1 = appId + "-c1";
                String r1 = appId + "-r1";
                String r2 = appId + "-r2";
                for (ExecutorEvent event : List.of(
                        new ExecutorEvent.NodePoolReady(meta, r1, c1, "v5p", ResourceNames.nodePool(r1)),
                        new ExecutorEvent.JobSubmitted(meta, r1, c1, "v5p", ResourceNames.k8sJob(r1), "uid"),
                        new ExecutorEvent.JobRunning(meta, r1, c1, "v5p", ResourceNames.k8sJob(r1), "uid-r1", 1, 1))) {
                    send(producer, Topics.EXECUTOR_EVENTS.name(), "v5p",
                            Topics.EXECUTOR_EVENTS.valueSerde().toBytes(event));
                }
                // bob's r3 is next (alice was served last), not alice's r2
                TaskStatus next = await(statuses, seen, s -> s.reason().filter(Reason.Provisioning::equals).isPresent()
                        && !s.jobId().equals(r1));
                assertThat(next.jobId()).isEqualTo(appId + "-r3");
                await(statuses, seen, s -> s.jobId().equals(r2) && s.message().startsWith("队列位置 #2"));
                long r1Pending = seen.stream().filter(s -> s.jobId().equals(r1)).count();
                assertThat(r1Pending).isGreaterThanOrEqualTo(3);
            }
        }
    }

    /**
     * Issue 11 case 9: a rolling restart must not stall every queue for the session timeout. The old instance leaves
     * the group when it closes, so the new one is assigned the tasks at once; measured with the production session
     * timeout (45 s). The figure goes to docs/reliability.md.
     */
    @Test
    void aGracefullyRestartedSchedulerTakesUpItsWorkWithinSeconds() throws Exception {
        String bootstrap = SharedInfra.kafka().bootstrapServers();
        TopicProvisioner.ensureAll(bootstrap, 3, (short) 1);
        String appId = SharedInfra.uniqueName("takeover");
        Path stateDir = Files.createTempDirectory("scheduler-takeover");
        Map<String, String> settings = Map.of("falcon.kafka.bootstrap-servers", bootstrap,
                "falcon.kafka.replication-factor", "1", "falcon.scheduler.application-id", appId,
                "falcon.scheduler.state-dir", stateDir.toString());
        assertThat(SchedulerConfig.from(settings).sessionTimeout()).isEqualTo(Duration.ofSeconds(45));
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap);
                KafkaConsumer<String, TaskStatus> statuses = statusConsumer(bootstrap, appId)) {
            List<TaskStatus> seen = new ArrayList<>();
            String cluster = appId + "-c1";
            try (SchedulerApp app = new SchedulerApp(SchedulerConfig.from(settings)).start()) {
                sendRouted(producer, (
                        TestRows.clusterInserted(TestRows.cluster(cluster, "v5p", "active"))));
                String first = appId + "-first";
                sendRouted(producer, (
                        TestRows.inserted(TestRows.job(first, "alice", "v5p", "2x2x1", TestRows.SPEC))));
                await(statuses, seen, s -> s.jobId().equals(first));
            }
            mark = seen.size();
            long restarted = System.nanoTime();
            try (SchedulerApp app = new SchedulerApp(SchedulerConfig.from(settings)).start()) {
                String second = appId + "-second";
                sendRouted(producer, (
                        TestRows.inserted(TestRows.job(second, "bob", "v5p", "2x2x1", TestRows.SPEC))));
                await(statuses, seen, s -> s.jobId().equals(second));
                Duration takeover = Duration.ofNanos(System.nanoTime() - restarted);
                System.out.println("scheduler takeover after a graceful restart: " + takeover.toMillis() + " ms");
                // Far below the 45 s session timeout a crashed-and-replaced member would wait for.
                assertThat(takeover).isLessThan(Duration.ofSeconds(15));
            }
        }
    }

    /**
     * Waits for a status among those polled since the mark (statuses of different jobs come through different
     * partitions, so their relative order is not defined); every polled status is kept in seen.
     */
    private TaskStatus await(KafkaConsumer<String, TaskStatus> consumer, List<TaskStatus> seen,
            Predicate<TaskStatus> wanted) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        int checked = mark;
        while (Instant.now().isBefore(deadline)) {
            for (; checked < seen.size(); checked++) {
                if (wanted.test(seen.get(checked))) {
                    return seen.get(checked);
                }
            }
            consumer.poll(Duration.ofMillis(200)).forEach(record -> seen.add(record.value()));
        }
        throw new AssertionError("no such status; saw " + seen);
    }

    /** A row change as cdc-ingest publishes it for the scheduler (SchedulerRouting onto falcon.scheduler.input). */
    private static void sendRouted(KafkaProducer<String, byte[]> producer, Object change) throws Exception {
        List<io.falcon.events.cdc.SchedulerRouting.Routed> routed = change instanceof io.falcon.events.cdc.JobChange j
                ? io.falcon.events.cdc.SchedulerRouting.route(j)
                : io.falcon.events.cdc.SchedulerRouting.route((io.falcon.events.cdc.ClusterChange) change);
        for (io.falcon.events.cdc.SchedulerRouting.Routed r : routed) {
            send(producer, Topics.SCHEDULER_INPUT.name(), r.key(), Topics.SCHEDULER_INPUT.valueSerde().toBytes(r.input()));
        }
    }

    private static void send(KafkaProducer<String, byte[]> producer, String topic, String key, byte[] value)
            throws Exception {
        producer.send(new ProducerRecord<>(topic, key, value)).get();
    }

    private static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<String, TaskStatus> statusConsumer(String bootstrap, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group + "-reader");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<String, TaskStatus> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                Topics.TASK_STATUS.valueSerde().deserializer());
        consumer.subscribe(List.of(Topics.TASK_STATUS.name()));
        return consumer;
    }

    private static void deleteRecursively(Path dir) throws Exception {
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
