package io.falcon.bench.chaos;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.falcon.cli.JobSubmission;
import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.fleetsim.ReservationConfig;
import io.falcon.local.DemoFleet;
import io.falcon.local.processes.ProcessFalcon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code bench/chaos}: Falcon as separate processes ({@link ProcessFalcon}) under load while components are killed,
 * checked from outside at the end. It submits jobs from several actors over two clusters and two topologies with mixed
 * durations, failures (OOM, non-zero exit, image pull), aborts aimed at every phase, reservation shortfalls (a small
 * reservation on one cluster) and a few invalid specs, and injects device faults (and a few undecodable records) at
 * the same time; meanwhile the {@link Monkey} kills -9 and restarts components, restarts the broker and MariaDB, and
 * runs second instances of the scheduler and executor for a while. Then, from the rows, fleet-sim's record, the GKE
 * and Kubernetes APIs and the topics: every row final with the status its knobs dictate; no Kubernetes Job (nor node
 * pool) created twice; none left; no row's status moved backwards; every injected fault has its verdict; nothing in
 * the dead-letter topic but the undecodable inputs. Prints the run and "N passed, M failed"; exits 1 on any violation.
 *
 * <p>Usage: {@code bench/chaos [--jobs N] [--kills-per-component K] [--seed S] [--data-dir DIR] [--limit MINUTES]}
 * (defaults 2000, 5, the time, a temporary directory, 45).
 */
public final class ChaosMain {

    private static final String CLUSTER_A = "c4a05000-0000-4000-8000-00000000000a";
    private static final String CLUSTER_B = "c4a05000-0000-4000-8000-00000000000b";
    /** Evidence (row history, fleet record, log lines) is gathered for at most this many jobs of the violations. */
    private static final int MAX_JOBS_WITH_EVIDENCE = 200;

    private static final int MAX_LOG_LINES_PER_JOB = 150;

    private final int jobCount;
    private final int killsPerComponent;
    private final long seed;
    private final Path dataDir;
    private final Duration limit;
    private final String runId;
    private final List<Workload.Planned> plan;
    private final Map<String, Workload.Planned> byId = new HashMap<>();
    private final Map<String, Workload.Phase> abortedIn = new ConcurrentHashMap<>();
    private final Set<String> abortNotApplied = ConcurrentHashMap.newKeySet();
    private final AtomicInteger submitted = new AtomicInteger();
    private final AtomicInteger finalRows = new AtomicInteger();
    private final Map<String, String> injectedFaults = new ConcurrentHashMap<>();
    private final Set<String> injectedGarbage = ConcurrentHashMap.newKeySet();
    private volatile boolean submissionsDone;

    private ChaosMain(int jobCount, int killsPerComponent, long seed, Path dataDir, Duration limit) {
        this.jobCount = jobCount;
        this.killsPerComponent = killsPerComponent;
        this.seed = seed;
        this.dataDir = dataDir;
        this.limit = limit;
        this.runId = "chaos" + Long.toString(seed % 100_000, 36);
        this.plan = Workload.plan(seed, jobCount, runId);
        plan.forEach(p -> byId.put(p.id(), p));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        int jobs = Integer.parseInt(options.getOrDefault("--jobs", "2000"));
        int kills = Integer.parseInt(options.getOrDefault("--kills-per-component", "5"));
        long seed = Long.parseLong(options.getOrDefault("--seed", Long.toString(System.currentTimeMillis())));
        Path dataDir = options.containsKey("--data-dir")
                ? Path.of(options.get("--data-dir"))
                : Files.createTempDirectory("falcon-chaos-");
        Duration limit = Duration.ofMinutes(Long.parseLong(options.getOrDefault("--limit", "45")));
        int failed = new ChaosMain(jobs, kills, seed, dataDir, limit).run();
        System.exit(failed == 0 ? 0 : 1);
    }

    private int run() throws Exception {
        Instant started = Instant.now();
        System.out.printf(
                "chaos run %s: %d jobs, seed %d, every component killed at least %d times, data in %s%n",
                runId, jobCount, seed, killsPerComponent, dataDir);
        List<DemoFleet.DemoCluster> rows = List.of(
                new DemoFleet.DemoCluster(
                        CLUSTER_A,
                        "chaos-edge-a",
                        "falcon-chaos-a",
                        "us-central1",
                        "v6e",
                        "falcon-chaos-a",
                        Optional.of("chaos-v6e-reservation")),
                new DemoFleet.DemoCluster(
                        CLUSTER_B,
                        "chaos-edge-b",
                        "falcon-chaos-b",
                        "us-east5",
                        "v6e",
                        "falcon-chaos-b",
                        Optional.empty()));
        // a small reservation on cluster A: jobs there wait ClusterBusy while it is in use (reservation shortfalls)
        List<EdgeClusterConfig> sim = List.of(
                EdgeClusterConfig.of("falcon-chaos-a", "us-central1", "chaos-edge-a", "v6e")
                        .withReservation(
                                new ReservationConfig(null, "chaos-v6e-reservation", "ct6e-standard-4t", 6, 0)),
                EdgeClusterConfig.of("falcon-chaos-b", "us-east5", "chaos-edge-b", "v6e"));
        ProcessFalcon.Options options = ProcessFalcon.Options.demo(Path.of("").toAbsolutePath(), dataDir)
                .withFleet(rows, sim, Duration.ofMillis(800), Duration.ofMillis(300))
                // a pod that cannot pull its image keeps its queue's slot until the executor gives up on it; with
                // compose's 2 min, the image-pull jobs alone would hold each queue for minutes: 15 s here
                .withOverride("executor", "FALCON_EXECUTOR_IMAGE_PULL_GRACE", "15s")
                // two jobs of a queue acquire at once, not the default 16: a short run's few jobs per queue then still
                // wait in their queues, so that aborts land in every phase, Waiting included (parallel acquisition
                // is exercised all the same)
                .withOverride("scheduler", "FALCON_SCHEDULER_ACQUIRERS_PER_QUEUE", "2");
        RowSampler sampler = new RowSampler(runId);
        Monkey monkey;
        List<ChaosReport.Check> checks;
        try (ProcessFalcon falcon = ProcessFalcon.start(options)) {
            System.out.print(falcon.describe());
            double submitShare = 0.5;
            monkey = new Monkey(
                    falcon,
                    seed,
                    () -> submissionsDone
                            ? submitShare + (1 - submitShare) * finalRows.get() / jobCount
                            : submitShare * submitted.get() / jobCount,
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(20));
            Thread chaos = new Thread(monkey, "chaos-monkey");
            // spread the submissions so that the load lasts while every component is killed its share of times
            Duration submitOver = Duration.ofSeconds(Math.max(jobCount / 7, 30L * killsPerComponent * 5 / 4));
            Thread submitter = new Thread(() -> submitAll(falcon, submitOver), "chaos-submitter");
            Thread faults = new Thread(() -> injectFaults(falcon, sampler), "chaos-faults");
            chaos.start();
            submitter.start();
            faults.start();
            Instant deadline = started.plus(limit);
            while (Instant.now().isBefore(deadline)) {
                Thread.sleep(500);
                Optional<Map<String, RowSampler.Row>> sampled = sampleQuietly(falcon, sampler);
                if (sampled.isEmpty()) {
                    continue; // MariaDB is restarting
                }
                Map<String, RowSampler.Row> now = sampled.get();
                issueAborts(falcon, now);
                finalRows.set((int)
                        now.values().stream().filter(RowSampler.Row::isFinal).count());
                boolean allFinal = submissionsDone && finalRows.get() == jobCount;
                if (allFinal && monkey.done(killsPerComponent)) {
                    break;
                }
            }
            monkey.stop();
            chaos.join();
            submitter.join();
            faults.interrupt();
            faults.join();
            System.out.printf(
                    "load and chaos over after %s; waiting for the fleet to be cleaned up%n",
                    Duration.between(started, Instant.now()).withNanos(0));
            // the cleanup retries every 60 s and an orphan goes after its 10 min grace; rows still open keep theirs
            awaitCleanup(falcon, finalRows.get() == jobCount ? Duration.ofMinutes(12) : Duration.ofMinutes(2));
            // the record shows a deletion once GKE accepted it; the pool is STOPPING for its deletion delay after that
            awaitApisClean(falcon, Duration.ofSeconds(90));
            sampleQuietly(falcon, sampler);
            checks = check(falcon, sampler, monkey);
        }
        ChaosReport report = report(checks, monkey, sampler, Duration.between(started, Instant.now()));
        return (int) report.failed();
    }

    // ---- load ----

    private void submitAll(ProcessFalcon falcon, Duration over) {
        long pauseMs = Math.max(1, over.toMillis() / Math.max(1, jobCount));
        Connection connection = null;
        for (Workload.Planned job : plan) {
            while (true) {
                try {
                    if (connection == null || connection.isClosed()) {
                        connection = falcon.connect();
                    }
                    JobSubmission.submit(connection, job.request());
                    break;
                } catch (SQLException e) {
                    if (e.getMessage() != null && e.getMessage().contains("Duplicate entry")) {
                        break; // the insert landed before the connection broke
                    }
                    closeQuietly(connection);
                    connection = null;
                    sleep(500);
                }
            }
            while (job.abortIn().filter(Workload.Phase.SUBMITTED::equals).isPresent()) {
                // its own retries: a resubmission would only find the row there and skip the abort
                try {
                    if (connection == null || connection.isClosed()) {
                        connection = falcon.connect();
                    }
                    recordAbort(job.id(), JobSubmission.abort(connection, job.id()), Workload.Phase.SUBMITTED);
                    break;
                } catch (SQLException e) {
                    closeQuietly(connection);
                    connection = null;
                    sleep(500);
                }
            }
            submitted.incrementAndGet();
            sleep(pauseMs);
        }
        closeQuietly(connection);
        submissionsDone = true;
    }

    private void issueAborts(ProcessFalcon falcon, Map<String, RowSampler.Row> rows) {
        List<Workload.Planned> due = new ArrayList<>();
        for (Workload.Planned job : plan) {
            if (job.abortIn().isEmpty() || abortedIn.containsKey(job.id()) || abortNotApplied.contains(job.id())) {
                continue;
            }
            RowSampler.Row row = rows.get(job.id());
            if (row == null) {
                continue;
            }
            if (row.isFinal()) {
                abortNotApplied.add(job.id());
                continue;
            }
            Optional<Workload.Phase> phase = Workload.Phase.of(row.status(), row.reason());
            if (phase.isPresent() && phase.get().compareTo(job.abortIn().get()) >= 0) {
                due.add(job);
            }
        }
        if (due.isEmpty()) {
            return;
        }
        try (Connection connection = falcon.connect()) {
            for (Workload.Planned job : due) {
                RowSampler.Row row = rows.get(job.id());
                recordAbort(
                        job.id(),
                        JobSubmission.abort(connection, job.id()),
                        Workload.Phase.of(row.status(), row.reason()).orElseThrow());
            }
        } catch (SQLException e) {
            // MariaDB is restarting: the next sample tries again
        }
    }

    private void recordAbort(String jobId, boolean applied, Workload.Phase phase) {
        if (applied) {
            abortedIn.put(jobId, phase);
        } else {
            abortNotApplied.add(jobId);
        }
    }

    /** Device faults on devices of running jobs and of idle nodes, plus a few undecodable records. */
    private void injectFaults(ProcessFalcon falcon, RowSampler sampler) {
        Random random = new Random(seed ^ 0x5eed);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, falcon.bootstrapServers());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        List<String> codes = List.of(
                "8C1F8609",
                "80E01801",
                "80CF8009",
                "A1B2C3D4",
                "80C98009",
                "81078603",
                "8C084E00",
                "80818C00",
                "4C1F8608",
                "40F84E00");
        int garbage = 0;
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            long n = 0;
            while (!Thread.currentThread().isInterrupted() && !submissionsDone) {
                List<String> running = sampler.lastSeen().values().stream()
                        .filter(r -> r.status().equals("Running"))
                        .map(RowSampler.Row::id)
                        .sorted()
                        .toList();
                Optional<String> job = running.isEmpty() || random.nextInt(4) == 0
                        ? Optional.empty()
                        : Optional.of(running.get(random.nextInt(running.size())));
                String cluster = random.nextBoolean() ? CLUSTER_A : CLUSTER_B;
                String node = runId + "-node-" + random.nextInt(300);
                String device = "accel" + random.nextInt(4);
                DeviceFault fault = DeviceFault.of(
                        cluster,
                        node,
                        device,
                        codes.get(random.nextInt(codes.size())),
                        job,
                        System.currentTimeMillis() + n++);
                String identity = identity(
                        fault.clusterId(),
                        fault.nodeName(),
                        fault.deviceName(),
                        fault.faultCode(),
                        fault.receiveTimeMs());
                byte[] value =
                        Topics.DEVICE_FAULTS.valueSerde().serializer().serialize(Topics.DEVICE_FAULTS.name(), fault);
                producer.send(
                        new ProducerRecord<>(Topics.DEVICE_FAULTS.name(), fault.topicKey(), value),
                        (metadata, error) -> {
                            if (error == null) {
                                injectedFaults.put(identity, fault.jobId().orElse("-"));
                            }
                        });
                if (garbage < 3 && n % 200 == 100) {
                    String key = runId + "-garbage-" + garbage++;
                    producer.send(
                            new ProducerRecord<>(
                                    Topics.DEVICE_FAULTS.name(),
                                    key,
                                    "{\"not\":\"a fault\"".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                            (metadata, error) -> {
                                if (error == null) {
                                    injectedGarbage.add(key);
                                }
                            });
                }
                Thread.sleep(200);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String identity(String cluster, String node, String device, String code, long receiveTimeMs) {
        return cluster + "|" + node + "|" + device + "|" + code + "|" + receiveTimeMs;
    }

    // ---- the end ----

    private void awaitCleanup(ProcessFalcon falcon, Duration max) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            if (outstanding(FleetRecord.read(falcon.recordFile())).isEmpty()) {
                return;
            }
            Thread.sleep(2000);
        }
    }

    /**
     * Until the GKE and Kubernetes APIs show nothing of Falcon's left, at most {@code max}: a deletion the record
     * shows accepted may still be under way (a pool STOPPING). What is left after that is left for good, and the
     * check reports it.
     */
    private void awaitApisClean(ProcessFalcon falcon, Duration max) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            if (leftInTheFleet(falcon).isEmpty()) {
                return;
            }
            Thread.sleep(2000);
        }
    }

    /** A node pool or Kubernetes Job as fleet-sim's record names it, with the job it was made for (if it says). */
    record Resource(String kind, String cluster, String name, Optional<String> job) {
        @Override
        public String toString() {
            return kind + " " + cluster + "/" + name;
        }
    }

    /** Resources the record shows created (accepted) and not since deleted (accepted), by kind and name. */
    static List<Resource> outstanding(List<FleetRecord.Entry> record) {
        Map<String, Integer> balance = new LinkedHashMap<>();
        Map<String, Resource> resources = new HashMap<>();
        for (FleetRecord.Entry e : record) {
            if (e.outcome() != FleetRecord.Outcome.ACCEPTED) {
                continue;
            }
            boolean pool =
                    e.kind() == FleetRecord.Kind.NODE_POOL_CREATE || e.kind() == FleetRecord.Kind.NODE_POOL_DELETE;
            Resource resource = new Resource(pool ? "node pool" : "Kubernetes Job", e.cluster(), e.name(), e.job());
            String key = resource.toString();
            resources.merge(key, resource, (a, b) -> a.job().isPresent() ? a : b);
            int delta = e.kind() == FleetRecord.Kind.NODE_POOL_CREATE || e.kind() == FleetRecord.Kind.K8S_JOB_CREATE
                    ? 1
                    : -1;
            balance.merge(key, delta, Integer::sum);
        }
        return balance.entrySet().stream()
                .filter(e -> e.getValue() != 0)
                .map(e -> resources.get(e.getKey()))
                .toList();
    }

    private List<ChaosReport.Check> check(ProcessFalcon falcon, RowSampler sampler, Monkey monkey) throws Exception {
        List<ChaosReport.Check> checks = new ArrayList<>();
        Map<String, RowSampler.Row> rows = sampler.lastSeen();

        List<ChaosReport.Violation> notFinal = new ArrayList<>();
        List<ChaosReport.Violation> wrong = new ArrayList<>();
        for (Workload.Planned job : plan) {
            RowSampler.Row row = rows.get(job.id());
            Workload.Expected expected = expected(job, Optional.ofNullable(abortedIn.get(job.id())), row);
            String knob = job.knob()
                    + (abortedIn.containsKey(job.id()) ? ", aborted in " + abortedIn.get(job.id()) : "")
                    + (!abortedIn.containsKey(job.id()) && row != null && row.abortRequested()
                            ? ", aborted (the answer to the abort was lost)"
                            : "")
                    + (abortNotApplied.contains(job.id()) && (row == null || !row.abortRequested())
                            ? ", abort not applied (row was final)"
                            : "");
            if (row == null || !row.isFinal()) {
                notFinal.add(ChaosReport.Violation.ofJob(
                        job.id() + " (" + knob + ")",
                        job.id(),
                        row == null ? "no row" : describe(row),
                        "a final row (" + expected + ")"));
                continue;
            }
            if (!expected.matches(row.status(), row.reason())) {
                wrong.add(ChaosReport.Violation.ofJob(
                        job.id() + " (" + knob + ")", job.id(), describe(row), expected.toString()));
            }
        }
        checks.add(new ChaosReport.Check("every row final", notFinal));
        checks.add(new ChaosReport.Check("every row ends with the status its knobs dictate", wrong));

        List<FleetRecord.Entry> record = FleetRecord.read(falcon.recordFile());
        checks.add(new ChaosReport.Check(
                "no job's Kubernetes Job created twice", createdTwice(record, FleetRecord.Kind.K8S_JOB_CREATE)));
        checks.add(new ChaosReport.Check(
                "no job's node pool created twice", createdTwice(record, FleetRecord.Kind.NODE_POOL_CREATE)));
        checks.add(new ChaosReport.Check(
                "no node pool or Kubernetes Job left (fleet-sim's record)",
                outstanding(record).stream()
                        .map(r -> new ChaosReport.Violation(
                                r.toString(),
                                r.job(),
                                "created (accepted) and never deleted (accepted)",
                                "deleted once its job ended",
                                List.of()))
                        .toList()));
        checks.add(new ChaosReport.Check(
                "no node pool or Kubernetes Job left (GKE and Kubernetes APIs)", leftInTheFleet(falcon)));
        checks.add(new ChaosReport.Check(
                "no row's status moved backwards (" + sampler.samples() + " samples)",
                sampler.backwards().stream()
                        .map(m -> ChaosReport.Violation.ofJob(
                                m.id(),
                                m.id(),
                                m.before() + " then " + m.after(),
                                "a final row never changes, Running never returns to Pending"))
                        .toList()));

        Set<String> verdicts = new HashSet<>();
        List<ChaosReport.Violation> strangeLetters = new ArrayList<>();
        readTopics(falcon, verdicts, strangeLetters);
        List<ChaosReport.Violation> missing = injectedFaults.entrySet().stream()
                .filter(f -> !verdicts.contains(f.getKey()))
                .sorted(Map.Entry.comparingByKey())
                .map(f -> f.getValue().equals("-")
                        ? ChaosReport.Violation.of(
                                "fault " + f.getKey(), "no verdict on " + Topics.FAULT_VERDICTS.name(), "a verdict")
                        : ChaosReport.Violation.ofJob(
                                "fault " + f.getKey() + " on job " + f.getValue(),
                                f.getValue(),
                                "no verdict on " + Topics.FAULT_VERDICTS.name(),
                                "a verdict"))
                .toList();
        checks.add(new ChaosReport.Check(
                "every injected fault has its verdict (" + injectedFaults.size() + " faults)", missing));
        checks.add(new ChaosReport.Check(
                "nothing in the dead-letter topic but the " + injectedGarbage.size() + " undecodable inputs",
                strangeLetters));

        Map<Workload.Phase, Integer> perPhase = new EnumMap<>(Workload.Phase.class);
        abortedIn.values().forEach(p -> perPhase.merge(p, 1, Integer::sum));
        List<ChaosReport.Violation> phasesWithoutAbort = new ArrayList<>();
        for (Workload.Phase phase : Workload.Phase.values()) {
            if (!perPhase.containsKey(phase)) {
                phasesWithoutAbort.add(
                        ChaosReport.Violation.of("phase " + phase, "no abort landed in it", "at least one abort"));
            }
        }
        checks.add(new ChaosReport.Check("aborts in every phase " + perPhase, phasesWithoutAbort));

        List<ChaosReport.Violation> chaosShort = new ArrayList<>();
        monkey.kills().forEach((component, n) -> {
            if (n < killsPerComponent) {
                chaosShort.add(ChaosReport.Violation.of(
                        component, "killed " + n + " times", "at least " + killsPerComponent + " kills"));
            }
        });
        if (!monkey.brokerRestarted()) {
            chaosShort.add(ChaosReport.Violation.of("the broker", "not restarted", "restarted once"));
        }
        if (!monkey.mariaDbRestarted()) {
            chaosShort.add(ChaosReport.Violation.of("MariaDB", "not restarted", "restarted once"));
        }
        if (!monkey.rebalanced()) {
            chaosShort.add(ChaosReport.Violation.of(
                    "second scheduler and executor", "did not run", "started and stopped once"));
        }
        monkey.failures()
                .forEach(f -> chaosShort.add(ChaosReport.Violation.of("the monkey", f, "every act to succeed")));
        checks.add(new ChaosReport.Check("the chaos happened as planned " + monkey.kills(), chaosShort));

        // what each violation naming a job can show about it: its row's history, fleet-sim's record, the logs
        Set<String> named = jobsForEvidence(checks, MAX_JOBS_WITH_EVIDENCE);
        Evidence evidence = Evidence.gather(
                named, sampler::history, record, dataDir.toAbsolutePath().resolve("logs"), MAX_LOG_LINES_PER_JOB);
        return checks.stream()
                .map(c -> new ChaosReport.Check(c.name(), evidence.attachTo(c.violations())))
                .toList();
    }

    /**
     * The final row a job must end with: Aborted when an abort of it landed, which the row itself tells (its
     * aborting_at; {@code recordedAbort} is only where the harness saw the answer), else what its knob dictates. An
     * abort whose connection broke after the UPDATE committed (MariaDB restarting) has no recorded answer, yet the
     * job must end Aborted.
     */
    static Workload.Expected expected(
            Workload.Planned job, Optional<Workload.Phase> recordedAbort, RowSampler.Row row) {
        return job.expected(recordedAbort.isPresent() || (row != null && row.abortRequested()));
    }

    /**
     * The jobs whose evidence is gathered, at most {@code max}: those of the checks with the fewest violations first,
     * so that a check broken by two jobs gets their logs even when another check lists hundreds of rows not final.
     */
    static Set<String> jobsForEvidence(List<ChaosReport.Check> checks, int max) {
        Set<String> jobs = new java.util.LinkedHashSet<>();
        checks.stream()
                .sorted(java.util.Comparator.comparingInt(c -> c.violations().size()))
                .flatMap(c -> c.violations().stream())
                .flatMap(v -> v.job().stream())
                .takeWhile(j -> jobs.size() < max)
                .forEach(jobs::add);
        return jobs;
    }

    private static String describe(RowSampler.Row row) {
        return row.status() + row.reason().map(r -> "/" + r).orElse("");
    }

    /**
     * Each resource of {@code createKind} that fleet-sim accepted to create again while an earlier create of the same
     * cluster and name had not failed. A node pool whose create operation failed (NODE_POOL_CREATE_FAILED: GKE left it
     * in ERROR, e.g. for want of reservation capacity) is deleted by Falcon and created again for its job once there
     * is room (docs/architecture.md, "Supply modes"): that second create is no duplicate.
     */
    static List<ChaosReport.Violation> createdTwice(List<FleetRecord.Entry> record, FleetRecord.Kind createKind) {
        Map<String, List<FleetRecord.Entry>> history = new LinkedHashMap<>();
        Set<String> duplicated = new java.util.LinkedHashSet<>();
        Map<String, Boolean> createdAndNotFailed = new HashMap<>();
        for (FleetRecord.Entry e : record) {
            String key = e.cluster() + "/" + e.name();
            boolean create = e.kind() == createKind && e.outcome() == FleetRecord.Outcome.ACCEPTED;
            boolean failed = createKind == FleetRecord.Kind.NODE_POOL_CREATE
                    && e.kind() == FleetRecord.Kind.NODE_POOL_CREATE_FAILED;
            if (!create && !failed) {
                continue;
            }
            history.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
            if (failed) {
                createdAndNotFailed.put(key, false);
            } else {
                if (createdAndNotFailed.getOrDefault(key, false)) {
                    duplicated.add(key);
                }
                createdAndNotFailed.put(key, true);
            }
        }
        return duplicated.stream()
                .map(key -> {
                    List<FleetRecord.Entry> entries = history.get(key);
                    return new ChaosReport.Violation(
                            key,
                            entries.stream().flatMap(x -> x.job().stream()).findFirst(),
                            "created "
                                    + entries.stream()
                                            .filter(x -> x.kind() == createKind)
                                            .count()
                                    + " times ("
                                    + entries.stream()
                                            .map(x -> (x.kind() == createKind ? "created at " : "create failed at ")
                                                    + x.at())
                                            .collect(Collectors.joining(", "))
                                    + ")",
                            "created once (again only after its create failed)",
                            List.of());
                })
                .toList();
    }

    private List<ChaosReport.Violation> leftInTheFleet(ProcessFalcon falcon) throws IOException {
        List<ChaosReport.Violation> left = new ArrayList<>();
        try (ClusterManagerClient gke = ClusterManagerClient.create(ClusterManagerSettings.newBuilder()
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder()
                        .setEndpoint(falcon.gkeEndpoint())
                        .setChannelConfigurator(b -> b.usePlaintext())
                        .build())
                .build())) {
            for (String[] cluster : List.of(
                    new String[] {"falcon-chaos-a", "us-central1", "chaos-edge-a"},
                    new String[] {"falcon-chaos-b", "us-east5", "chaos-edge-b"})) {
                String path = "projects/" + cluster[0] + "/locations/" + cluster[1] + "/clusters/" + cluster[2];
                gke.listNodePools(path)
                        .getNodePoolsList()
                        .forEach(p -> left.add(new ChaosReport.Violation(
                                "node pool " + cluster[2] + "/" + p.getName(),
                                Optional.ofNullable(
                                        p.getConfig().getMetadataMap().get("falcon-job-id")),
                                "listed by GKE, status " + p.getStatus(),
                                "gone",
                                List.of())));
                String url = gke.getCluster(path).getEndpoint();
                try (KubernetesClient k8s = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder()
                                .withMasterUrl(url)
                                .withTrustCerts(true)
                                .build())
                        .withHttpClientFactory(new JdkHttpClientFactory())
                        .build()) {
                    k8s.batch()
                            .v1()
                            .jobs()
                            .inAnyNamespace()
                            .list()
                            .getItems()
                            .forEach(j -> left.add(new ChaosReport.Violation(
                                    "Kubernetes Job " + cluster[2] + "/"
                                            + j.getMetadata().getNamespace() + "/"
                                            + j.getMetadata().getName(),
                                    Optional.ofNullable(j.getMetadata().getAnnotations())
                                            .map(a -> a.get("falcon.io/job-id")),
                                    "listed by the Kubernetes API"
                                            + (j.getMetadata().getDeletionTimestamp() != null
                                                    ? ", being deleted since "
                                                            + j.getMetadata().getDeletionTimestamp()
                                                    : ""),
                                    "gone",
                                    List.of())));
                }
            }
        }
        return left;
    }

    /** The verdicts' fault identities, and the dead letters that are not one of this run's undecodable inputs. */
    private void readTopics(ProcessFalcon falcon, Set<String> verdicts, List<ChaosReport.Violation> strangeLetters) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, falcon.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, runId + "-checks-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Set<String> garbageSeen = new HashSet<>();
        try (KafkaConsumer<String, FaultVerdict> consumer = new KafkaConsumer<>(
                props,
                new StringDeserializer(),
                Topics.FAULT_VERDICTS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.FAULT_VERDICTS.name()));
            drain(consumer, record -> {
                FaultVerdict v = record.value();
                verdicts.add(identity(v.clusterId(), v.nodeName(), v.deviceName(), v.faultCode(), v.receiveTimeMs()));
            });
        }
        props.put(ConsumerConfig.GROUP_ID_CONFIG, runId + "-dead-letters-" + System.nanoTime());
        try (KafkaConsumer<String, DeadLetter> consumer = new KafkaConsumer<>(
                props, new StringDeserializer(), Topics.DEAD_LETTER.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.DEAD_LETTER.name()));
            drain(consumer, record -> {
                DeadLetter letter = record.value();
                Optional<String> key = letter.key();
                if (key.isPresent() && injectedGarbage.contains(key.get())) {
                    garbageSeen.add(key.get());
                } else {
                    String subject = "dead letter from " + letter.sourceTopic() + " key " + key.orElse("-");
                    String seen = "dead-lettered: " + letter.reason();
                    String expected = "only this run's undecodable inputs dead-lettered";
                    strangeLetters.add(key.filter(byId::containsKey)
                            .map(job -> ChaosReport.Violation.ofJob(subject, job, seen, expected))
                            .orElse(ChaosReport.Violation.of(subject, seen, expected)));
                }
            });
        }
        injectedGarbage.stream()
                .filter(k -> !garbageSeen.contains(k))
                .forEach(k -> strangeLetters.add(ChaosReport.Violation.of(
                        "undecodable input " + k, "not in " + Topics.DEAD_LETTER.name(), "dead-lettered")));
    }

    /** Reads until nothing new came for 5 s (at most 2 min). */
    private static <V> void drain(
            KafkaConsumer<String, V> consumer, java.util.function.Consumer<ConsumerRecord<String, V>> each) {
        Instant quietSince = Instant.now();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (Instant.now().isBefore(deadline)
                && Duration.between(quietSince, Instant.now()).compareTo(Duration.ofSeconds(5)) < 0) {
            var records = consumer.poll(Duration.ofMillis(500));
            if (!records.isEmpty()) {
                quietSince = Instant.now();
            }
            records.forEach(each);
        }
    }

    private ChaosReport report(List<ChaosReport.Check> checks, Monkey monkey, RowSampler sampler, Duration took) {
        Map<Workload.Knob, Long> knobs = plan.stream()
                .collect(Collectors.groupingBy(
                        Workload.Planned::knob, () -> new EnumMap<>(Workload.Knob.class), Collectors.counting()));
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("run", runId + " (seed " + seed + ", data in " + dataDir.toAbsolutePath() + ")");
        facts.put(
                "jobs",
                String.format(
                        "%d %s, aborts applied %d (not applied, already final: %d)",
                        jobCount, knobs, abortedIn.size(), abortNotApplied.size()));
        facts.put(
                "kills",
                String.format(
                        "%s; broker restarted: %s; MariaDB restarted: %s; second scheduler and executor: %s",
                        monkey.kills(), monkey.brokerRestarted(), monkey.mariaDbRestarted(), monkey.rebalanced()));
        facts.put(
                "restarts",
                String.format(
                        "%d; faults injected: %d; undecodable inputs: %d; row samples: %d",
                        monkey.acts().stream()
                                .filter(a -> a.what().startsWith("restarted"))
                                .count(),
                        injectedFaults.size(),
                        injectedGarbage.size(),
                        sampler.samples()));
        facts.put("duration", took.withNanos(0).toString());
        Path data = dataDir.toAbsolutePath();
        facts.put(
                "report",
                "whole, with the evidence of each violation: " + data.resolve(ChaosReport.TEXT_FILE) + ", "
                        + data.resolve(ChaosReport.JSON_FILE));
        ChaosReport report = new ChaosReport(facts, checks, monkey.acts());
        Path file = report.writeTo(data);
        System.out.println();
        System.out.print(report.text(30, false, Optional.of(file)));
        return report;
    }

    private static Optional<Map<String, RowSampler.Row>> sampleQuietly(ProcessFalcon falcon, RowSampler sampler) {
        try (Connection connection = falcon.connect()) {
            return Optional.of(sampler.sample(connection));
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // already broken
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
