package io.falcon.bench;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.events.ClusterStatus;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.events.cdc.SchedulerRouting;
import io.falcon.events.cdc.SourcePosition;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.status.TaskStatus;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Issue 16 (e), scale: the real scheduler-streams process (SchedulerMain, exactly-once, RocksDB stores) on the
 * embedded broker, fed {@code falcon.scheduler.input} directly (CDC and the executor are not in the loop: what is
 * measured is the scheduler's own state). It loads W waiting jobs over C clusters x 4 topologies, then lets R jobs
 * pass through and retire (each submitted on a cluster of another TPU type and aborted, so it acquires the slot,
 * has a pool asked for, ends Aborted and leaves memory), sampling the scheduler's heap after a full GC as they pass;
 * then restarts it twice: with its local state (warm) and without it (cold: every store restored from its
 * changelog), measuring the time from the process start to the first decision on a new job, and the heap after.
 *
 * <p>Usage: {@code bench/run io.falcon.bench.ScaleHarness [waiting] [retired] [clusters] [replace]} (defaults 100000
 * 1000000 50); with {@code replace}, after the load one input re-places the whole backlog, twice ({@link
 * #measureReplacement}); with {@code admission}, the waiting jobs are submissions with specs of the largest size
 * taken ({@code falcon.scheduler.max-spec-bytes}) from 1,000 actors, more of them than {@code
 * falcon.scheduler.max-live-jobs} (the overall cap): the scheduler runs with the pod's heap ({@code k8s/}: 75% of
 * 2 GiB) and the table shows its heap with the cap reached, the refusals, and the restarts with that state.
 */
public final class ScaleHarness {
    private static final String[] TOPOLOGIES = {"2x2", "2x4", "4x4", "4x8"};
    private static final String SPEC = "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\"]}";
    private static final String APP_ID = "falcon-scheduler";
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

    private final EmbeddedKafka kafka;
    private final Path stateDir;
    private final Path logDir;
    private final KafkaProducer<String, byte[]> producer;
    private final List<String[]> rows = new ArrayList<>();
    private long seq;
    private Process scheduler;
    private int starts;
    private boolean replaceBacklog;
    /** Admission mode: submissions of the largest spec taken, from many actors, beyond the overall cap. */
    private boolean admission;

    private String spec = SPEC;

    private ScaleHarness(EmbeddedKafka kafka, Path work) {
        this.kafka = kafka;
        this.stateDir = work.resolve("scheduler-state");
        this.logDir = work.resolve("logs");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        producer = new KafkaProducer<>(
                p, new StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer());
    }

    public static void main(String[] args) throws Exception {
        int waiting = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int retired = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int clusters = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        boolean replace = args.length > 3 && args[3].equals("replace");
        boolean admission = args.length > 3 && args[3].equals("admission");
        Path work = Files.createTempDirectory("falcon-scale");
        try (EmbeddedKafka kafka = EmbeddedKafka.launch(work.resolve("kafka"))) {
            kafka.createTopics(1, Topics.SCHEDULER_INPUT.name(), Topics.EXECUTOR_EVENTS.name());
            kafka.createTopics(
                    3, Topics.TASK_STATUS.name(), Topics.EXECUTOR_COMMANDS.name(), Topics.DEAD_LETTER.name());
            ScaleHarness h = new ScaleHarness(kafka, work);
            h.replaceBacklog = replace;
            h.admission = admission;
            if (admission) {
                h.spec = specOfBytes(
                        Math.toIntExact(io.falcon.events.config.SchedulerKeys.MAX_SPEC_BYTES.defaultValue()));
            }
            try {
                h.run(waiting, retired, clusters);
            } finally {
                h.stopScheduler();
                h.producer.close();
            }
        }
        System.out.println("work directory (logs): " + work);
    }

    private void run(int waiting, int retired, int clusters) throws Exception {
        Thread executor = new Thread(this::confirmPoolDeletions, "scale-executor");
        executor.setDaemon(true);
        executor.start();
        startScheduler();
        for (int c = 0; c < clusters; c++) {
            send(cluster("c" + c, "v6e"));
        }
        send(cluster("churn", "v5e"));
        Instant loadStart = Instant.now();
        for (int i = 0; i < waiting; i++) {
            String actor = admission ? "tenant" + (i % 1000) : "actor" + (i % 97);
            send(submit("w" + i, actor, "v6e", TOPOLOGIES[i % TOPOLOGIES.length]));
        }
        awaitConsumed(Duration.ofMinutes(30));
        if (admission) {
            row(
                    "admission: " + waiting + " submissions of " + spec.length() + "-byte specs from 1,000 actors",
                    Duration.between(loadStart, Instant.now()).toMillis() + " ms to consume; "
                            + countStatuses("TooManyJobs") + " refused Failed/TooManyJobs",
                    heapAfterGc());
        } else {
            row(
                    "load: " + waiting + " waiting jobs over " + clusters + " clusters x 4 topologies",
                    Duration.between(loadStart, Instant.now()).toMillis() + " ms to consume",
                    heapAfterGc());
        }

        if (replaceBacklog) {
            measureReplacement(waiting);
        }

        int checkpoints = retired > 0 ? 4 : 0;
        int done = 0;
        Instant churnStart = Instant.now();
        for (int k = 1; k <= checkpoints; k++) {
            int until = (int) ((long) retired * k / checkpoints);
            while (done < until) {
                int round = Math.min(until - done, 10_000);
                for (int i = done; i < done + round; i++) {
                    String id = "r" + i;
                    JobRow row = jobRow(id, "churner" + (i % 13), "v5e", "2x2", "Pending", Optional.empty());
                    send(change(ChangeOp.CREATE, Optional.empty(), row));
                    send(change(
                            ChangeOp.UPDATE,
                            Optional.of(row),
                            jobRow(id, row.actor(), "v5e", "2x2", "Aborting", Optional.of(Instant.now()))));
                }
                done += round;
            }
            awaitConsumed(Duration.ofMinutes(10));
            Duration took = Duration.between(churnStart, Instant.now());
            row(
                    "retired: " + done + " jobs passed (submitted, slot, pool asked, aborted)",
                    took.toSeconds() + " s since the first (" + (done * 1000L / Math.max(1, took.toMillis()))
                            + " jobs/s)",
                    heapAfterGc());
        }

        stopScheduler();
        measureRestart("restart with local state (warm)");
        stopScheduler();
        deleteRecursively(stateDir);
        measureRestart("restart without local state (cold: changelog restore)");
        printTable();
    }

    /**
     * Issue 30 item 15: one input that re-places the whole backlog, in one step and so in one exactly-once
     * transaction (Kafka Streams' transaction.timeout.ms is 10 s by default): a new active cluster of the backlog's
     * type (every waiting job is placed again), then a cluster set to maintenance (its waiting jobs move). Each is
     * timed from the input to the scheduler's commit past it, with the task-status records it produced and whether
     * the scheduler's log shows an aborted or timed-out transaction.
     */
    private void measureReplacement(int waiting) throws Exception {
        for (String[] step : List.of(
                new String[] {"a new active cluster: every waiting job placed again", "extra"},
                new String[] {"cluster c0 set to maintenance: its waiting jobs move", "c0"})) {
            long statusesBefore = endOffsets(Topics.TASK_STATUS.name());
            Instant start = Instant.now();
            if (step[1].equals("extra")) {
                send(cluster("extra", "v6e"));
            } else {
                send(maintenance("c0", "v6e"));
            }
            awaitConsumed(Duration.ofMinutes(30));
            long produced = endOffsets(Topics.TASK_STATUS.name()) - statusesBefore;
            row(
                    "re-placement (" + waiting + " waiting): " + step[0],
                    Duration.between(start, Instant.now()).toMillis() + " ms to commit; " + produced
                            + " task-status records; the step: " + lastSlowStep()
                            + "; transaction trouble in the log: " + transactionTrouble(),
                    heapAfterGc());
        }
    }

    /** A spec of exactly this many UTF-8 bytes: the largest the scheduler takes, when it is the limit. */
    static String specOfBytes(int bytes) {
        String head = "{\"image\":\"us-docker.pkg.dev/p/r/train:1\",\"command\":[\"python\"],\"args\":[\"";
        String tail = "\"]}";
        return head + "a".repeat(Math.max(0, bytes - head.length() - tail.length())) + tail;
    }

    /** How many task-status records (all of the run so far) name the word (a Reason). */
    private long countStatuses(String word) {
        Properties p = new Properties();
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        byte[] needle = word.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long found = 0;
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                p,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(Topics.TASK_STATUS.name()).stream()
                    .map(i -> new org.apache.kafka.common.TopicPartition(i.topic(), i.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (var record : consumer.poll(Duration.ofSeconds(1))) {
                    if (indexOf(record.value(), needle) >= 0) {
                        found++;
                    }
                }
            }
        }
        return found;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private long endOffsets(String topic) throws Exception {
        try (Admin admin = kafka.admin()) {
            var partitions = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions();
            Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
            partitions.forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get().values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        }
    }

    /** What the scheduler's last "slow scheduler step" log line says of its time deciding and writing. */
    private String lastSlowStep() throws IOException {
        Pattern slow = Pattern.compile(
                "slow scheduler step: (decided in \\d+ ms), stores written and outputs sent in" + " (\\d+ ms)");
        String last = "not logged (under 1 s)";
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.sorted().toList()) {
                try (Stream<String> lines = Files.lines(f)) {
                    for (String line : lines.toList()) {
                        var m = slow.matcher(line);
                        if (m.find()) {
                            last = m.group(1) + ", written (transaction open) in " + m.group(2);
                        }
                    }
                }
            }
        }
        return last;
    }

    /** Lines of the scheduler's logs that tell of an aborted, fenced or timed-out transaction, or a corrupted task. */
    private long transactionTrouble() throws IOException {
        Pattern trouble = Pattern.compile("(?i)(ProducerFenced|InvalidProducerEpoch|TaskCorrupted|TaskMigrated"
                + "|transaction.*(abort|timed? ?out)|TimeoutException)");
        try (Stream<Path> files = Files.list(logDir)) {
            long count = 0;
            for (Path f : files.toList()) {
                try (Stream<String> lines = Files.lines(f)) {
                    count += lines.filter(l -> trouble.matcher(l).find()).count();
                }
            }
            return count;
        }
    }

    private List<SchedulerRouting.Routed> maintenance(String id, String tpuType) {
        ClusterRow active = new ClusterRow(
                id,
                "edge-" + id,
                "proj-" + id,
                "us-central1",
                tpuType,
                "bucket-" + id,
                Optional.empty(),
                ClusterStatus.ACTIVE,
                Optional.of(Instant.now()));
        return SchedulerRouting.route(new ClusterChange(
                meta(),
                ChangeOp.UPDATE,
                Optional.of(active),
                Optional.of(active.withStatus(ClusterStatus.MAINTENANCE)),
                source()));
    }

    private void measureRestart(String what) throws Exception {
        Instant start = Instant.now();
        startScheduler();
        String probe = "probe" + starts;
        send(submit(probe, "prober", "v6e", "2x2"));
        Instant first = awaitStatus(probe, Duration.ofMinutes(20));
        row(
                what,
                Duration.between(start, first).toMillis() + " ms process start -> first decision on a new job;"
                        + " scheduler's own store scan: " + restoreLine(),
                heapAfterGc());
    }

    /**
     * The executor's part that matters for the scheduler's state: every node-pool deletion asked for is confirmed
     * (each time it is asked, as the executor does), so that the pools of the passing jobs are forgotten. Pool
     * creations are never answered: the slot holders of the waiting queues stay Provisioning.
     */
    private void confirmPoolDeletions() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "scale-executor");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                p, new StringDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.EXECUTOR_COMMANDS.name()));
            while (!Thread.currentThread().isInterrupted()) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    ExecutorCommand command =
                            Topics.EXECUTOR_COMMANDS.valueSerde().deserializer().deserialize("", r.value());
                    if (command instanceof ExecutorCommand.EnsureNodePoolDeleted delete) {
                        sendEvent(new ExecutorEvent.NodePoolDeleted(
                                meta(),
                                delete.jobId(),
                                delete.cluster().clusterId(),
                                delete.cluster().tpuType(),
                                delete.nodePoolName()));
                    }
                }
                // Committed after the answers are sent: the harness reads this lag to know the executor caught up.
                producer.flush();
                consumer.commitSync();
            }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the scheduler process ----

    private void startScheduler() throws IOException {
        starts++;
        Files.createDirectories(logDir);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                java,
                admission ? "-Xmx1536m" : "-Xmx2g",
                "-cp",
                System.getProperty("java.class.path"),
                "io.falcon.scheduler.SchedulerMain");
        Map<String, String> env = pb.environment();
        env.put("FALCON_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        env.put("FALCON_KAFKA_REPLICATION_FACTOR", "1");
        env.put("FALCON_SCHEDULER_STATE_DIR", stateDir.toString());
        env.put("FALCON_OPS_PORT", "0");
        env.put("FALCON_INSTANCE_ID", "scale-1");
        env.put(
                "FALCON_LOG_FILE",
                logDir.resolve("scheduler-" + starts + ".log").toString());
        pb.redirectErrorStream(true);
        pb.redirectOutput(logDir.resolve("scheduler-" + starts + ".out").toFile());
        scheduler = pb.start();
    }

    private void stopScheduler() throws InterruptedException {
        if (scheduler != null && scheduler.isAlive()) {
            scheduler.destroy(); // SIGTERM: Kafka Streams commits, writes its checkpoint and leaves the group
            if (!scheduler.waitFor(2, TimeUnit.MINUTES)) {
                scheduler.destroyForcibly().waitFor();
            }
        }
    }

    /** The scheduler's heap after a full GC, read with jcmd (the harness and the broker are another process). */
    private String heapAfterGc() throws Exception {
        long pid = scheduler.pid();
        jcmd(pid, "GC.run");
        String info = jcmd(pid, "GC.heap_info");
        Matcher m = HEAP_USED.matcher(info);
        return m.find() ? (Long.parseLong(m.group(1)) / 1024) + " MiB" : "? (" + info.strip() + ")";
    }

    private static String jcmd(long pid, String command) throws Exception {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process p = new ProcessBuilder(jcmd, Long.toString(pid), command)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    private String restoreLine() throws IOException {
        try (Stream<String> lines = Files.lines(logDir.resolve("scheduler-" + starts + ".log"))) {
            return lines.filter(l -> l.contains("restored") && l.contains("live jobs"))
                    .reduce((a, b) -> b)
                    .map(l -> l.substring(l.indexOf("restored")))
                    .orElse("(no restore line)");
        }
    }

    // ---- input ----

    private void send(SchedulerRouting.Routed routed) {
        producer.send(new ProducerRecord<>(
                Topics.SCHEDULER_INPUT.name(),
                routed.key(),
                Topics.SCHEDULER_INPUT.valueSerde().serializer().serialize("", routed.input())));
    }

    private void sendEvent(ExecutorEvent event) {
        producer.send(new ProducerRecord<>(
                Topics.EXECUTOR_EVENTS.name(),
                event.tpuType(),
                Topics.EXECUTOR_EVENTS.valueSerde().serializer().serialize("", event)));
    }

    private void send(List<SchedulerRouting.Routed> routed) {
        routed.forEach(this::send);
    }

    private List<SchedulerRouting.Routed> cluster(String id, String tpuType) {
        ClusterRow row = new ClusterRow(
                id,
                "edge-" + id,
                "proj-" + id,
                "us-central1",
                tpuType,
                "bucket-" + id,
                Optional.empty(),
                ClusterStatus.ACTIVE,
                Optional.of(Instant.now()));
        return SchedulerRouting.route(
                new ClusterChange(meta(), ChangeOp.CREATE, Optional.empty(), Optional.of(row), source()));
    }

    private List<SchedulerRouting.Routed> submit(String id, String actor, String tpuType, String topology) {
        return change(
                ChangeOp.CREATE, Optional.empty(), jobRow(id, actor, tpuType, topology, "Pending", Optional.empty()));
    }

    private List<SchedulerRouting.Routed> change(ChangeOp op, Optional<JobRow> before, JobRow after) {
        return SchedulerRouting.route(new JobChange(meta(), op, before, Optional.of(after), source()));
    }

    private JobRow jobRow(
            String id, String actor, String tpuType, String topology, String status, Optional<Instant> abortingAt) {
        return new JobRow(
                id,
                actor,
                "name-" + id,
                tpuType,
                topology,
                spec,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                status,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(Instant.now()),
                Optional.empty(),
                Optional.empty(),
                abortingAt,
                Optional.empty(),
                Optional.empty());
    }

    private static Meta meta() {
        return Meta.of("scale-harness", Instant.now());
    }

    private SourcePosition source() {
        return new SourcePosition("mysql-bin.000001", ++seq, 0, System.currentTimeMillis());
    }

    // ---- waiting ----

    /**
     * Until the scheduler has committed every input produced so far and the executor's part has answered every
     * command: repeated until a pass finds nothing new on either side (each side's output is the other's input).
     */
    private void awaitConsumed(Duration limit) throws Exception {
        producer.flush();
        Instant deadline = Instant.now().plus(limit);
        try (Admin admin = kafka.admin()) {
            while (true) {
                boolean schedulerWasBehind = awaitGroup(
                        admin, APP_ID, List.of(Topics.SCHEDULER_INPUT.name(), Topics.EXECUTOR_EVENTS.name()), deadline);
                boolean executorWasBehind =
                        awaitGroup(admin, "scale-executor", List.of(Topics.EXECUTOR_COMMANDS.name()), deadline);
                producer.flush();
                if (!schedulerWasBehind && !executorWasBehind) {
                    return;
                }
            }
        }
    }

    /** Waits until the group has committed the end of every partition of the topics; whether it had to wait. */
    private boolean awaitGroup(Admin admin, String group, List<String> topics, Instant deadline) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
            d.partitions().forEach(pi -> latest.put(new TopicPartition(d.name(), pi.partition()), OffsetSpec.latest()));
        }
        var ends = admin.listOffsets(latest).all().get();
        boolean waited = false;
        while (Instant.now().isBefore(deadline)) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            boolean all = latest.keySet().stream().allMatch(tp -> {
                OffsetAndMetadata at = committed.get(tp);
                long end = ends.get(tp).offset();
                return end == 0 || (at != null && at.offset() >= end);
            });
            if (all) {
                return waited;
            }
            waited = true;
            if (!scheduler.isAlive()) {
                throw new IllegalStateException("the scheduler process died; see " + logDir);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(group + " did not catch up with " + topics + " in time");
    }

    /** When the first status of the job was produced (its record timestamp). */
    private Instant awaitStatus(String jobId, Duration limit) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "scale-probe-" + jobId);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Instant deadline = Instant.now().plus(limit);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                p, new StringDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.TASK_STATUS.name()).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition()))
                    .toList();
            consumer.assign(partitions);
            // Statuses of the probe can only come after it was produced, which is after the process start.
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            while (Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (jobId.equals(r.key())) {
                        TaskStatus status =
                                Topics.TASK_STATUS.valueSerde().deserializer().deserialize("", r.value());
                        return status.meta().occurredAt();
                    }
                }
                if (!scheduler.isAlive()) {
                    throw new IllegalStateException("the scheduler process died; see " + logDir);
                }
            }
        }
        throw new IllegalStateException("no status for " + jobId + " within " + limit);
    }

    // ---- output ----

    private void row(String what, String result, String heap) {
        rows.add(new String[] {what, result, heap});
        System.out.printf("%-70s | %-90s | heap after GC %s%n", what, result, heap);
        System.out.flush();
    }

    private void printTable() {
        System.out.println();
        System.out.println("| stage | result | scheduler heap after full GC |");
        System.out.println("|---|---|---|");
        for (String[] r : rows) {
            System.out.println("| " + r[0] + " | " + r[1] + " | " + r[2] + " |");
        }
        System.out.println("(JVM: " + ManagementFactory.getRuntimeMXBean().getVmVersion() + ", "
                + Runtime.getRuntime().availableProcessors() + " cores)");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
