package io.falcon.bench;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.events.Meta;
import io.falcon.events.TopicProvisioner;
import io.falcon.events.Topics;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.FaultStreamsApp;
import io.falcon.faults.FaultStreamsConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The two loads of issue 12 through fault-streams on the embedded broker (exactly-once, RocksDB stores), in one
 * JVM with the broker:
 * <ul>
 * <li>{@code mixed}: 1,000 jobs, 4,000 nodes x 8 devices, 25 % of the faults without a job id, 20 codes, 10 ms of
 * event time between faults;</li>
 * <li>{@code storm}: storms of one code on every device of a 4,000-device job (500 nodes x 8) within 30 s, one
 * after another (a new job each), which must isolate nothing.</li>
 * </ul>
 * A warm-up of 50,000 faults of the same load (other clusters, earlier event time) runs first, so that the figure
 * is the sustained rate rather than the JIT's. The faults are encoded before the clock starts and produced at once;
 * the time runs until every fault has its verdict (one per fault; a marker fault per partition, stamped an hour
 * later, closes the last job windows). It prints faults/s to the last verdict and the steady rate (the verdicts
 * between the 10 % and the 90 % mark), the verdict outcomes, the CPU time per fault (of the
 * stream threads and of the whole process: on a shared machine faults/s says how much of the cores the run got,
 * CPU per fault what the code costs), and the resident memory of the process (broker included) and the heap.
 * The JVM's own threads (JIT compilers, GC), which the thread bean does not show, are read from /proc.
 * Usage: FaultLoadHarness mixed|storm [faults, default 200000] [stream threads, default 1]; the warm-up is
 * {@code -Dfaults.warm-up=N} (default 50,000).
 */
public final class FaultLoadHarness {
    private static final int PARTITIONS = 3;
    private static final int SEGMENT_BYTES = 1 << 30;
    private static final long BASE = Instant.parse("2026-12-03T00:00:00Z").toEpochMilli();

    private FaultLoadHarness() {}

    public static void main(String[] args) throws Exception {
        String load = args.length > 0 ? args[0] : "mixed";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        // -Dfaults.warm-up=N: the JIT compiles the hot paths of the broker, the clients and fault-streams during
        // the first few hundred thousand faults on a shared machine, and that compiling is not the sustained cost
        int warmUpFaults = Integer.getInteger("faults.warm-up", WARM_UP);
        List<DeviceFault> warmUp = load(load, warmUpFaults, BASE, "warm-");
        long measuredBase = warmUp.get(warmUp.size() - 1).receiveTimeMs()
                + Duration.ofHours(2).toMillis();
        List<DeviceFault> faults = load(load, n, measuredBase, "");
        List<ProducerRecord<byte[], byte[]>> warmUpRecords = records(warmUp);
        List<ProducerRecord<byte[], byte[]>> records = records(faults);
        // Kafka's default segment size (1 GiB) rather than the embedded broker's small-footprint 8 MB: with 8 MB the
        // changelog segments roll every few seconds and the log cleaner compacts them all through the run (4-5 us per
        // fault of broker CPU), which a production broker, rolling at 1 GiB, does not
        try (EmbeddedKafka kafka = EmbeddedKafka.launch(Map.of("log.segment.bytes", SEGMENT_BYTES))) {
            TopicProvisioner.ensureAll(kafka.bootstrapServers(), PARTITIONS, (short) 1);
            publishPolicy(kafka.bootstrapServers());
            FaultStreamsConfig config = FaultStreamsConfig.from(Map.of(
                    SharedKeys.KAFKA_BOOTSTRAP_SERVERS.key(), kafka.bootstrapServers(),
                    SharedKeys.KAFKA_REPLICATION_FACTOR.key(), "1",
                    FaultStreamsKeys.STREAM_THREADS.key(), String.valueOf(threads),
                    FaultStreamsKeys.STATE_DIR.key(),
                            Files.createTempDirectory("fault-load").toString()));
            Properties producerProps = new Properties();
            producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 20);
            producerProps.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
            producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            Properties consumerProps = new Properties();
            consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "fault-load");
            consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (FaultStreamsApp app = new FaultStreamsApp(config).start();
                    KafkaProducer<byte[], byte[]> producer =
                            new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
                    KafkaConsumer<String, byte[]> verdicts =
                            new KafkaConsumer<>(consumerProps, new StringDeserializer(), new ByteArrayDeserializer())) {
                verdicts.subscribe(List.of(Topics.FAULT_VERDICTS.name()));
                awaitRunning(app);
                warmUpRecords.forEach(producer::send);
                producer.flush();
                long warmedUp = 0;
                while (warmedUp < warmUp.size()) {
                    warmedUp += verdicts.poll(Duration.ofMillis(200)).count();
                }
                CpuTimes cpuBefore = CpuTimes.now();
                long start = System.nanoTime();
                records.forEach(producer::send);
                producer.flush();
                double producedSeconds = (System.nanoTime() - start) / 1e9;
                Map<FaultVerdict.Outcome, Long> outcomes = new EnumMap<>(FaultVerdict.Outcome.class);
                long received = 0;
                long peakRss = 0;
                long nextRssSample = 0;
                // the steady rate: verdicts between the 10 % and the 90 % mark, leaving out the start (the first
                // commit interval) and the end (the last job windows wait for the markers' event time and a decision
                // round, the last verdicts for a commit), a fixed second or two that a longer run would dilute
                long tenth = faults.size() / 10;
                long ninetieth = faults.size() - tenth;
                long atTenth = 0;
                long atNinetieth = 0;
                Instant deadline = Instant.now().plus(Duration.ofMinutes(10));
                while (received < faults.size() && Instant.now().isBefore(deadline)) {
                    for (ConsumerRecord<String, byte[]> r : verdicts.poll(Duration.ofMillis(200))) {
                        if (r.key().startsWith(MARKER_CLUSTER)) {
                            continue; // the warm-up's markers, decided once the measured faults move event time
                        }
                        outcomes.merge(outcome(r.value()), 1L, Long::sum);
                        received++;
                    }
                    if (atTenth == 0 && received >= tenth) {
                        atTenth = System.nanoTime();
                    }
                    if (atNinetieth == 0 && received >= ninetieth) {
                        atNinetieth = System.nanoTime();
                    }
                    if (System.nanoTime() >= nextRssSample) {
                        peakRss = Math.max(peakRss, residentKb());
                        nextRssSample = System.nanoTime() + 1_000_000_000L;
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                CpuTimes cpu = CpuTimes.now().minus(cpuBefore);
                Runtime rt = Runtime.getRuntime();
                System.out.printf(
                        "%s load, %d faults, %d stream thread(s): %d verdicts in %.1f s = %.0f faults/s"
                                + " (produced in %.1f s)%n",
                        load, faults.size(), threads, received, seconds, received / seconds, producedSeconds);
                System.out.printf(
                        "steady rate (verdicts from the 10 %% to the 90 %% mark): %.0f faults/s%n",
                        (ninetieth - tenth) / ((atNinetieth - atTenth) / 1e9));
                System.out.printf("outcomes: %s%n", outcomes);
                // CPU time does not depend on how many other processes share the cores: the rate the CPU
                // allows is what a machine of our own would show
                System.out.printf(
                        "CPU per fault: %.1f us in the stream thread(s), %.1f us in the whole process (broker and"
                                + " harness included) = at most %.0f faults/s on one stream thread, %.0f faults/s on"
                                + " 2 cores; the process had %.2f cores on average (load average %s)%n",
                        cpu.streamNanos() / 1e3 / received,
                        cpu.processNanos() / 1e3 / received,
                        received / (cpu.streamNanos() / 1e9 / threads),
                        received / (cpu.processNanos() / 1e9 / 2),
                        cpu.processNanos() / 1e9 / seconds,
                        loadAverage());
                System.out.printf("CPU per fault by thread, us:%s%n", cpu.perFault(received));
                // the JIT compiles the hot paths of the broker, the clients and fault-streams for minutes on a shared
                // machine: a cost of the first minutes, not of the sustained rate
                double steadyMicros = (cpu.processNanos() - cpu.jitNanos()) / 1e3 / received;
                System.out.printf(
                        "without the JIT compiler threads: %.1f us per fault in the process = %.0f faults/s on 2 cores;"
                                + " GC pauses %.1f us per fault (elapsed); warm-up %d faults%n",
                        steadyMicros, 2e6 / steadyMicros, cpu.gcPauseMillis() * 1e3 / received, warmUpFaults);
                System.out.printf(
                        "allocated per fault: %d bytes in the stream thread(s), %d bytes in the live threads of the"
                                + " process%n",
                        cpu.streamAllocatedBytes() / received, cpu.allocatedBytes() / received);
                System.out.printf(
                        "resident memory (broker + fault-streams + harness): peak %d MB; heap used %d MB"
                                + " of %d MB max%n",
                        peakRss / 1024, (rt.totalMemory() - rt.freeMemory()) >> 20, rt.maxMemory() >> 20);
            }
        }
    }

    private static final int WARM_UP = 50_000;
    private static final String MARKER_CLUSTER = "c-marker";

    private static List<DeviceFault> load(String load, int n, long base, String clusterPrefix) {
        return switch (load) {
            case "mixed" -> mixed(n, base, clusterPrefix);
            case "storm" -> storm(n, base, clusterPrefix);
            default -> throw new IllegalArgumentException("load must be mixed or storm, got " + load);
        };
    }

    /** The faults in order, then a marker per partition an hour after the last. */
    private static List<ProducerRecord<byte[], byte[]>> records(List<DeviceFault> faults) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(faults.size() + PARTITIONS);
        long last = 0;
        for (DeviceFault fault : faults) {
            records.add(record(fault));
            last = Math.max(last, fault.receiveTimeMs());
        }
        for (int partition = 0; partition < PARTITIONS; partition++) {
            records.add(marker(partition, last + Duration.ofHours(1).toMillis()));
        }
        return records;
    }

    static List<DeviceFault> mixed(int n, long base, String clusterPrefix) {
        Random random = new Random(42);
        List<DeviceFault> faults = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int node = random.nextInt(4000);
            Optional<String> job = random.nextInt(4) == 0 ? Optional.empty() : Optional.of("job-" + node / 4);
            long at = base + i * 10L;
            faults.add(new DeviceFault(
                    new Meta(clusterPrefix + "mixed-" + i, Instant.ofEpochMilli(at), "bench"),
                    clusterPrefix + "c" + node % 4,
                    "node-" + node,
                    "npu-" + random.nextInt(8),
                    "CODE" + random.nextInt(20),
                    Optional.empty(),
                    job,
                    at));
        }
        return faults;
    }

    static List<DeviceFault> storm(int n, long base, String clusterPrefix) {
        Random random = new Random(42);
        List<DeviceFault> faults = new ArrayList<>(n);
        int devices = 4000;
        for (int storm = 0; faults.size() < n; storm++) {
            long start = base + storm * 60_000L;
            List<DeviceFault> one = new ArrayList<>(devices);
            for (int d = 0; d < devices && faults.size() + one.size() < n; d++) {
                long at = start + random.nextInt(30_000);
                one.add(new DeviceFault(
                        new Meta(clusterPrefix + "storm-" + storm + "-" + d, Instant.ofEpochMilli(at), "bench"),
                        clusterPrefix + "c1",
                        "storm-node-" + d / 8,
                        "npu-" + d % 8,
                        "8C084E00",
                        Optional.empty(),
                        Optional.of("storm-job-" + storm),
                        at));
            }
            one.sort((a, b) -> Long.compare(a.receiveTimeMs(), b.receiveTimeMs()));
            faults.addAll(one);
        }
        return faults;
    }

    private static ProducerRecord<byte[], byte[]> record(DeviceFault fault) {
        return new ProducerRecord<>(
                Topics.DEVICE_FAULTS.name(),
                fault.topicKey().getBytes(StandardCharsets.UTF_8),
                Topics.DEVICE_FAULTS.valueSerde().toBytes(fault));
    }

    /**
     * A job fault an hour after the trace, on the given partition (of a cluster of its own, the key): its event
     * time closes every window there.
     */
    private static ProducerRecord<byte[], byte[]> marker(int partition, long at) {
        for (int i = 0; ; i++) {
            DeviceFault fault =
                    DeviceFault.of(MARKER_CLUSTER + i, "marker", "npu-0", "MARKER", Optional.of("marker"), at);
            byte[] key = fault.topicKey().getBytes(StandardCharsets.UTF_8);
            if (Utils.toPositive(Utils.murmur2(key)) % PARTITIONS == partition) {
                return new ProducerRecord<>(
                        Topics.DEVICE_FAULTS.name(),
                        key,
                        Topics.DEVICE_FAULTS.valueSerde().toBytes(fault));
            }
        }
    }

    private static void publishPolicy(String bootstrap) throws Exception {
        IsolationPolicy policy = new IsolationPolicy(
                Meta.of("bench", Instant.now()), 1, true, 24, 3, IsolationPolicy.NEVER_RELEASE, false, 0);
        try (KafkaProducer<String, IsolationPolicy> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(),
                Topics.ISOLATION_POLICY.valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(Topics.ISOLATION_POLICY.name(), IsolationPolicy.KEY, policy))
                    .get();
        }
    }

    private static void awaitRunning(FaultStreamsApp app) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (app.state() != org.apache.kafka.streams.KafkaStreams.State.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    /** The verdict's outcome, found in its JSON bytes without decoding them (the harness shares the CPUs). */
    private static FaultVerdict.Outcome outcome(byte[] verdict) {
        for (int i = 0; i + OUTCOME.length < verdict.length; i++) {
            if (verdict[i] == OUTCOME[0] && matchesAt(verdict, i)) {
                int start = i + OUTCOME.length;
                int end = start;
                while (verdict[end] != '"') {
                    end++;
                }
                return FaultVerdict.Outcome.valueOf(new String(verdict, start, end - start, StandardCharsets.US_ASCII));
            }
        }
        throw new IllegalArgumentException("a verdict without an outcome");
    }

    private static boolean matchesAt(byte[] bytes, int at) {
        for (int j = 0; j < OUTCOME.length; j++) {
            if (bytes[at + j] != OUTCOME[j]) {
                return false;
            }
        }
        return true;
    }

    private static final byte[] OUTCOME = "\"outcome\":\"".getBytes(StandardCharsets.US_ASCII);

    /** One thread's figures so far: its group, CPU time (ns) and bytes allocated (0 where unknown). */
    private record ThreadTimes(String group, long cpuNanos, long allocatedBytes) {}

    /**
     * CPU time of the process and of each thread so far (keyed "java-ID" for the thread bean's threads, "os-TID" for
     * the JVM's compiler and GC threads, which the thread bean does not show, read from /proc), and the GC pauses.
     * Deltas are taken per thread, so a thread that ended (the JVM starts and stops compiler threads as needed) or
     * started between two readings counts only what it ran in between; what ended threads ran is in the remainder.
     */
    private record CpuTimes(long processNanos, Map<String, ThreadTimes> threads, long gcPauseMillis) {
        static final String JIT = "JIT compiler threads";
        static final String GC = "GC threads";
        static final String STREAM = "stream threads";

        static CpuTimes now() {
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            ThreadMXBean bean = ManagementFactory.getThreadMXBean();
            var allocation = (com.sun.management.ThreadMXBean) bean;
            Map<String, ThreadTimes> threads = new TreeMap<>();
            for (ThreadInfo info : bean.getThreadInfo(bean.getAllThreadIds())) {
                if (info != null) {
                    long id = info.getThreadId();
                    threads.put(
                            "java-" + id,
                            new ThreadTimes(
                                    group(info.getThreadName()),
                                    Math.max(0, bean.getThreadCpuTime(id)),
                                    Math.max(0, allocation.getThreadAllocatedBytes(id))));
                }
            }
            nativeThreads(threads);
            long gcMillis = ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
                    .sum();
            return new CpuTimes(os.getProcessCpuTime(), threads, gcMillis);
        }

        /**
         * The JVM's compiler and GC threads ("C2 CompilerThread0", "G1 Conc#0", "GC Thread#1", ... in
         * /proc/self/task/TID/stat; CPU in clock ticks of 10 ms).
         */
        private static void nativeThreads(Map<String, ThreadTimes> threads) {
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    String stat;
                    try {
                        stat = Files.readString(task.resolve("stat"));
                    } catch (java.io.IOException ended) {
                        continue;
                    }
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, close);
                    String group = name.contains("CompilerThre")
                            ? JIT
                            : name.startsWith("GC Thread") || name.startsWith("G1 ") ? GC : null;
                    if (group != null) {
                        String[] fields = stat.substring(close + 2).split(" ");
                        // fields after the name: state is 0, utime 11, stime 12
                        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                        threads.put("os-" + task.getFileName(), new ThreadTimes(group, ticks * 10_000_000L, 0));
                    }
                }
            } catch (java.io.IOException | RuntimeException e) {
                // no /proc: the JVM's threads stay in the remainder
            }
        }

        /** CPU ns by group. */
        Map<String, Long> byGroup() {
            Map<String, Long> groups = new TreeMap<>();
            threads.values().forEach(t -> groups.merge(t.group(), t.cpuNanos(), Long::sum));
            groups.putIfAbsent(JIT, 0L);
            groups.putIfAbsent(GC, 0L);
            return groups;
        }

        long streamNanos() {
            return byGroup().getOrDefault(STREAM, 0L);
        }

        long jitNanos() {
            return byGroup().getOrDefault(JIT, 0L);
        }

        long streamAllocatedBytes() {
            return threads.values().stream()
                    .filter(t -> t.group().equals(STREAM))
                    .mapToLong(ThreadTimes::allocatedBytes)
                    .sum();
        }

        long allocatedBytes() {
            return threads.values().stream()
                    .mapToLong(ThreadTimes::allocatedBytes)
                    .sum();
        }

        CpuTimes minus(CpuTimes before) {
            Map<String, ThreadTimes> delta = new TreeMap<>();
            threads.forEach((key, t) -> {
                ThreadTimes was = before.threads.getOrDefault(key, new ThreadTimes(t.group(), 0, 0));
                delta.put(
                        key,
                        new ThreadTimes(
                                t.group(), t.cpuNanos() - was.cpuNanos(), t.allocatedBytes() - was.allocatedBytes()));
            });
            long accounted =
                    delta.values().stream().mapToLong(ThreadTimes::cpuNanos).sum();
            long process = processNanos - before.processNanos;
            // what no thread above accounts for: the JVM's other threads (VM thread, ...) and threads that ended
            delta.put("remainder", new ThreadTimes("other JVM and ended threads", process - accounted, 0));
            return new CpuTimes(process, delta, gcPauseMillis - before.gcPauseMillis);
        }

        /** Microseconds per fault by group, largest first. */
        String perFault(long faults) {
            StringBuilder out = new StringBuilder();
            byGroup().entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> out.append(String.format(" %s %.1f;", e.getKey(), e.getValue() / 1e3 / faults)));
            return out.toString();
        }
    }

    /** The part of the process a thread belongs to, by its name. */
    private static String group(String thread) {
        if (thread.contains("-StreamThread-")) {
            return thread.contains("producer-network-thread")
                    ? "fault-streams' producer network thread"
                    : "stream threads";
        }
        if (thread.startsWith("falcon-fault-streams")) {
            return "fault-streams, other";
        }
        if (thread.equals("main") || thread.contains("producer-") || thread.contains("consumer-fault-load")) {
            return "harness (producing faults, reading verdicts)";
        }
        if (thread.startsWith("kafka-producer-network-thread | falcon-fault-streams")) {
            return "fault-streams' producer network thread";
        }
        return "broker and other";
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** VmRSS of this process in kB (0 where /proc is missing). */
    private static long residentKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }
}
