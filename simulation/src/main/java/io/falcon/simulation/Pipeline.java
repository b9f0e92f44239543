package io.falcon.simulation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * Jobs per second from INSERT to Running at real API latencies, on simulated time: the throughput part of {@code
 * bench/goodput}. Wall-clock cannot show it on a 2-core box that also runs fleet-sim, the broker and MariaDB
 * (docs/performance.md, stage t), so Falcon's pipeline is modelled here as what bounds it: each component's threads
 * (CDC's and the scheduler's single threads, the executor's command loop with its lanes and batch barrier, its step
 * threads, its informer, the status-sink), the CPU each spends per job on the cores its deployment gives it, the
 * latency of every GKE and Kubernetes call and Kafka hop, the scheduler's commits and its acquirers per queue.
 *
 * <p>What it takes as given (the {@link Setup}): CPU per job by component as {@code bench/e2e --stages t} measured it
 * (CpuAccount); the API calls per job as {@code bench/executor-throughput} counted them; intervals, lanes, threads
 * and acquirers from the settings catalog's defaults. The same setup with the box's two shared cores and the
 * harness's own CPU reproduces what stage t measured in wall-clock, which is how the model is checked
 * ({@link #thisBox}).
 */
final class Pipeline {
    private Pipeline() {}

    /** Who spends the CPU. OTHER is what shares the cores on the box and not in production: fleet-sim, broker, DB. */
    enum Part {
        CDC,
        SCHEDULER,
        EXECUTOR,
        SINK,
        OTHER
    }

    /**
     * The API calls a job makes and what each costs.
     *
     * @param gkeCall one GKE or Compute call
     * @param k8sCall one Kubernetes request
     * @param gkeCallsFirstStep the calls of a creation's first step (the pool, its recent operations, the create)
     * @param gkeCallsPerPool the calls of a pool's creation in all (its second step: the operation, the pool)
     * @param operationPoll from the first step to the second ({@code falcon.executor.poll-interval})
     * @param k8sCallsPerJob the requests of an EnsureJob (nodes, the Job, its NetworkPolicy, its resume)
     */
    record Api(
            Duration gkeCall,
            Duration k8sCall,
            int gkeCallsFirstStep,
            int gkeCallsPerPool,
            Duration operationPoll,
            int k8sCallsPerJob) {}

    /**
     * The hops between the components.
     *
     * @param kafkaHop from a produce to the consumer's poll returning it
     * @param dbWrite a status-sink batch's transaction
     * @param commit a Kafka Streams exactly-once commit (the stream thread waits for it)
     * @param cdcPoll Debezium's poll interval
     * @param commitInterval the scheduler's commit interval
     * @param earlyCommitGap the least time between commits the scheduler asks for at once (fresh input)
     * @param freshInput input younger than this asks for an early commit
     */
    record Hops(
            Duration kafkaHop,
            Duration dbWrite,
            Duration commit,
            Duration cdcPoll,
            Duration commitInterval,
            Duration earlyCommitGap,
            Duration freshInput) {}

    /**
     * The fleet answering at once, as fleet-sim does with pool delays of 0.
     *
     * @param nodesUp from a pool RUNNING to its nodes Ready
     * @param podStart from the Job's POST (its nodes Ready) to its pods Running
     * @param nodeEvents whether the executor's node informer sees the nodes come (it steps the pool at once, not at
     *     the next poll interval; bench/executor-throughput's fakes have no nodes to watch)
     */
    record Fleet(Duration nodesUp, Duration podStart, boolean nodeEvents) {}

    /**
     * CPU per job and the cores it runs on.
     *
     * @param perJob milliseconds of one core per job, by part
     * @param cores cores per part; a part missing from it runs on {@code shared}
     * @param shared the cores every part not in {@code cores} shares (the box: all of them)
     */
    record Cpu(Map<Part, Double> perJob, Map<Part, Double> cores, double shared) {
        Cpu {
            perJob = Map.copyOf(perJob);
            cores = Map.copyOf(cores);
        }

        double of(Part part) {
            return perJob.getOrDefault(part, 0.0);
        }
    }

    /**
     * How much runs at once.
     *
     * @param acquirersPerQueue jobs of one (cluster, topology) acquiring at once
     * @param lanes commands of one poll carried out at once
     * @param stepThreads the executor's pool step threads
     * @param commandPartitions partitions of the command topic (carried out one after another per poll)
     * @param maxPoll the most commands one poll returns
     */
    record Concurrency(int acquirersPerQueue, int lanes, int stepThreads, int commandPartitions, int maxPoll) {}

    /** One way to run the pipeline. */
    record Setup(String name, Api api, Hops hops, Fleet fleet, Cpu cpu, Concurrency concurrency) {
        Setup named(String n) {
            return new Setup(n, api, hops, fleet, cpu, concurrency);
        }

        Setup with(Cpu c) {
            return new Setup(name, api, hops, fleet, c, concurrency);
        }

        Setup with(Hops h) {
            return new Setup(name, api, h, fleet, cpu, concurrency);
        }

        Setup with(Fleet f) {
            return new Setup(name, api, hops, f, cpu, concurrency);
        }

        Setup with(Concurrency c) {
            return new Setup(name, api, hops, fleet, cpu, c);
        }

        /** The executor on this many cores (what-if: its k8s/ limit raised). */
        Setup withExecutorCores(double k) {
            Map<Part, Double> c = new EnumMap<>(Part.class);
            c.putAll(cpu.cores());
            c.put(Part.EXECUTOR, k);
            return named(name.replace("production (k8s/ CPU limits)", "production") + ", executor on " + (int) k
                            + (k == 1 ? " core" : " cores"))
                    .with(new Cpu(cpu.perJob(), c, cpu.shared()));
        }

        /** The scheduler's acquirers per queue changed (what-if). */
        Setup withAcquirersPerQueue(int a) {
            return named(name.replace("production (k8s/ CPU limits)", "production") + ", " + a + " acquirers per queue")
                    .with(new Concurrency(
                            a,
                            concurrency.lanes(),
                            concurrency.stepThreads(),
                            concurrency.commandPartitions(),
                            concurrency.maxPoll()));
        }

        /** The executor's lanes and step threads changed. */
        Setup withExecutor(int lanes, int stepThreads) {
            return with(new Concurrency(
                    concurrency.acquirersPerQueue(),
                    lanes,
                    stepThreads,
                    concurrency.commandPartitions(),
                    concurrency.maxPoll()));
        }
    }

    /**
     * Stage t's Falcon CPU per job (ms), its phase at real latencies with 200 jobs, from the INSERT until the phase's
     * pools were deleted (docs/performance.md). The executor's includes its GKE gRPC, HTTP and fabric8 client threads:
     * fleet-sim's servers and its own clients run on threads of their own, so those left are the executor's.
     */
    static final Map<Part, Double> MEASURED =
            Map.of(Part.CDC, 1.3, Part.SCHEDULER, 6.1, Part.EXECUTOR, 24.4, Part.SINK, 1.2);

    /**
     * The JDK's async pool, where the JDK http client completes each response for the executor's clients and
     * fleet-sim's alike (7.3 ms per job in that phase): half of it counted as the executor's.
     */
    static final double EXECUTOR_ASYNC_SHARE = 3.7;

    /** Everything else stage t's phase measured per job on its two shared cores (fleet-sim, broker, MariaDB...). */
    static final double HARNESS = 104.1 - 1.3 - 6.1 - 24.4 - 1.2 - EXECUTOR_ASYNC_SHARE;

    /**
     * Production: each component on the CPU limit of its k8s/ manifest (scheduler 2, executor 3, cdc-ingest 1,
     * status-sink 0.5 cores); GKE, Kubernetes, Kafka and MySQL elsewhere, their time the calls' and hops' latency;
     * the settings catalog's defaults.
     */
    static Setup production() {
        Map<Part, Double> cpu = new EnumMap<>(MEASURED);
        cpu.merge(Part.EXECUTOR, EXECUTOR_ASYNC_SHARE, Double::sum);
        return new Setup(
                "production (k8s/ CPU limits)",
                new Api(Duration.ofMillis(300), Duration.ofMillis(50), 3, 5, Duration.ofSeconds(10), 4),
                new Hops(
                        Duration.ofMillis(5),
                        Duration.ofMillis(10),
                        Duration.ofMillis(10),
                        Duration.ofMillis(50),
                        Duration.ofMillis(100),
                        Duration.ofMillis(20),
                        Duration.ofMillis(100)),
                new Fleet(Duration.ofSeconds(1), Duration.ofMillis(500), true),
                new Cpu(cpu, Map.of(Part.CDC, 1.0, Part.SCHEDULER, 2.0, Part.EXECUTOR, 3.0, Part.SINK, 0.5), 0),
                new Concurrency(16, 64, 256, 3, 500));
    }

    /**
     * The machine stage t ran on, the model's first check: everything, the harness too (fleet-sim, broker, MariaDB,
     * fault-streams: {@link #HARNESS} of the 104.1 ms per job it measured), on two shared cores, every hop slower for
     * it. That phase of stage t measured 18.6 jobs/s with 200 jobs.
     */
    static Setup thisBox() {
        Map<Part, Double> cpu = new EnumMap<>(MEASURED);
        cpu.merge(Part.EXECUTOR, EXECUTOR_ASYNC_SHARE, Double::sum);
        cpu.put(Part.OTHER, HARNESS);
        Setup p = production();
        Hops h = p.hops();
        return p.named("this box (2 shared cores, harness included)")
                .with(new Cpu(cpu, Map.of(), 2))
                .with(new Hops(
                        Duration.ofMillis(20),
                        Duration.ofMillis(20),
                        Duration.ofMillis(20),
                        h.cdcPoll(),
                        h.commitInterval(),
                        h.earlyCommitGap(),
                        h.freshInput()));
    }

    /**
     * {@code bench/executor-throughput}'s setting, the model's second check: the executor alone on two cores (0.7 ms
     * of CPU per job), the harness answering each NodePoolReady with the EnsureJob at once, every pool's command sent
     * at once (no queue limit). It measured 105.5 jobs/s to the last Job's POST with 2000 jobs.
     */
    static Setup executorAlone() {
        Setup p = production();
        Duration instant = Duration.ofMillis(1);
        return p.named("executor alone (bench/executor-throughput)")
                .with(new Hops(Duration.ofMillis(2), Duration.ZERO, Duration.ZERO, instant, instant, instant, instant))
                .with(new Cpu(Map.of(Part.EXECUTOR, 0.7), Map.of(Part.EXECUTOR, 2.0), 1))
                .with(new Fleet(p.fleet().nodesUp(), p.fleet().podStart(), false))
                .with(new Concurrency(
                        1_000_000,
                        p.concurrency().lanes(),
                        p.concurrency().stepThreads(),
                        p.concurrency().commandPartitions(),
                        p.concurrency().maxPoll()));
    }

    /** What one run gave. */
    record Result(
            Setup setup,
            int jobs,
            Duration lastRunning,
            Duration p50,
            Duration p99,
            Duration lastRowRunning,
            Duration lastPosted,
            Map<String, Double> busyCores) {
        double jobsPerSecond() {
            return jobs / Math.max(1e-9, lastRunning.toMillis() / 1000.0);
        }

        /** Up to the last Job's POST: how far Falcon's own part goes (stage t's "Falcon's part"). */
        double postsPerSecond() {
            return jobs / Math.max(1e-9, lastPosted.toMillis() / 1000.0);
        }

        double rowsPerSecond() {
            return jobs / Math.max(1e-9, lastRowRunning.toMillis() / 1000.0);
        }

        /** The cores that were busiest (the bound, when near 1): a part's own, or the shared ones. */
        Map.Entry<String, Double> busiest() {
            return busyCores.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElse(Map.entry("none", 0.0));
        }
    }

    /** {@code jobs} one-second jobs in one multi-row INSERT over {@code clusters} clusters x 3 topologies. */
    static Result run(Setup setup, int jobs, int clusters) {
        return new Model(setup, jobs, clusters).run();
    }

    // ---- the model ----

    private sealed interface Segment {}

    private record Burn(Part part, double millis) implements Segment {}

    private record Wait(Duration time) implements Segment {}

    /** Cores a part runs on: FIFO, each burst on one core. */
    private static final class Cores {
        private final Loop loop;
        private final double cores;
        private final double speed;
        private final Servers servers;
        private double busyMillis;

        Cores(Loop loop, double cores) {
            this.loop = loop;
            this.cores = cores;
            // half a core is one core at half speed (a CPU limit below 1 throttles the one core it runs on)
            this.speed = cores < 1 ? cores : 1;
            this.servers = new Servers(Math.max(1, (int) Math.floor(cores)));
        }

        void burn(double millis, Runnable then) {
            servers.take(release -> {
                long micros = Math.round(millis * 1000 / speed);
                busyMillis += micros / 1000.0 * speed;
                loop.after(Duration.ofNanos(micros * 1000), () -> {
                    release.run();
                    then.run();
                });
            });
        }

        double utilization(Duration over) {
            return over.isZero() ? 0 : busyMillis / (over.toMillis() * cores);
        }
    }

    /** Threads of a component: a task holds one for all its segments; FIFO when all are taken. */
    private static final class Threads {
        private final Servers servers;
        private final Model model;

        Threads(Model model, int size) {
            this.model = model;
            this.servers = new Servers(size);
        }

        void submit(List<Segment> segments, Runnable then) {
            servers.take(release -> model.play(segments, 0, () -> {
                release.run();
                then.run();
            }));
        }
    }

    /** Servers taken first come, first served: a task holds one until it runs the release it is given. */
    private static final class Servers {
        private final int size;
        private int busy;
        private final Queue<java.util.function.Consumer<Runnable>> waiting = new ArrayDeque<>();

        Servers(int size) {
            this.size = size;
        }

        void take(java.util.function.Consumer<Runnable> task) {
            if (busy < size) {
                busy++;
                task.accept(this::release);
            } else {
                waiting.add(task);
            }
        }

        /** The next waiting task gets the server at once; else it is free. */
        private void release() {
            java.util.function.Consumer<Runnable> next = waiting.poll();
            if (next == null) {
                busy--;
            } else {
                next.accept(this::release);
            }
        }
    }

    private record Job(int id, int cluster, int topology) {
        int queue(int clusters) {
            return topology * clusters + cluster;
        }
    }

    /** A status on its way to the jobs row. */
    private record Status(Job job, boolean running) {}

    /** A record on the scheduler's input and when it was appended. */
    private record Input(char kind, Job job, Instant appended) {}

    private static final class Model {
        private final Setup s;
        private final int n;
        private final int clusters;
        private final Loop loop = new Loop(Scenario.T0);
        private final Map<Part, Cores> cores = new EnumMap<>(Part.class);
        private final Cores shared;
        private final List<Job> jobs = new ArrayList<>();
        private final Instant[] podsRunning;
        private final Instant[] rowRunning;
        private final Instant[] nodesReady;
        private final Instant[] posted;

        Model(Setup setup, int jobs, int clusters) {
            this.s = setup;
            this.n = jobs;
            this.clusters = clusters;
            this.shared = new Cores(loop, Math.max(setup.cpu().shared(), 1e-9));
            setup.cpu().cores().forEach((part, k) -> cores.put(part, new Cores(loop, k)));
            for (int i = 0; i < jobs; i++) {
                this.jobs.add(new Job(i, i % clusters, (i / clusters) % 3));
            }
            laneThreads = new Threads(this, setup.concurrency().lanes());
            stepThreads = new Threads(this, setup.concurrency().stepThreads());
            podsRunning = new Instant[jobs];
            rowRunning = new Instant[jobs];
            nodesReady = new Instant[jobs];
            posted = new Instant[jobs];
        }

        private Cores coresOf(Part part) {
            return cores.getOrDefault(part, shared);
        }

        void play(List<Segment> segments, int i, Runnable then) {
            if (i == segments.size()) {
                then.run();
                return;
            }
            Runnable next = () -> play(segments, i + 1, then);
            if (segments.get(i) instanceof Burn cpu) {
                if (cpu.millis() <= 0) {
                    // through the loop, not the stack: a long chain of free steps must not nest
                    loop.after(Duration.ZERO, next);
                } else {
                    coresOf(cpu.part()).burn(cpu.millis(), next);
                }
            } else if (segments.get(i) instanceof Wait wait) {
                loop.after(wait.time(), next);
            }
        }

        /** A share of a part's CPU per job (spent at {@code of} points of its path). */
        private Burn cpu(Part part, int of) {
            return new Burn(part, s.cpu().of(part) / of);
        }

        /**
         * A Kafka hop, a row or the fleet's own work (nine per job): the harness's share of CPU (fleet-sim, broker,
         * MariaDB; on the box only) is spent before the thing arrives, its latency after.
         */
        private static final int OTHER_POINTS = 9;

        private void hop(Duration latency, Runnable then) {
            play(List.of(cpu(Part.OTHER, OTHER_POINTS), new Wait(latency)), 0, then);
        }

        // CDC: one thread reading the binlog every poll interval
        private final Threads cdc = new Threads(this, 1);
        private final Queue<Job> binlog = new ArrayDeque<>();
        private boolean cdcPolling;

        // the scheduler's stream thread, its input and what waits for its next commit
        private final Threads stream = new Threads(this, 1);
        private final Queue<Input> input = new ArrayDeque<>();
        private final List<Runnable> uncommitted = new ArrayList<>();
        private boolean streamBusy;
        private Instant lastCommit = Scenario.T0;
        private boolean commitTimer;
        private final Map<Integer, Integer> acquiring = new HashMap<>();
        private final Map<Integer, Queue<Job>> waitingJobs = new HashMap<>();

        // the executor: its command loop (one thread), lanes per batch, step threads, informer
        private final Threads commandLoop = new Threads(this, 1);
        private final Threads laneThreads;
        private final Threads stepThreads;
        private final Threads informer = new Threads(this, 1);
        private final List<Job> commands = new ArrayList<>(); // EnsureNodePool as job, EnsureJob as -1-id
        private final List<Boolean> commandIsJob = new ArrayList<>();
        private int commandsTaken;
        private boolean loopBusy;

        // the status-sink
        private final Threads sink = new Threads(this, 1);
        private final Queue<Status> statuses = new ArrayDeque<>();
        private boolean sinkBusy;

        Result run() {
            binlog.addAll(jobs);
            loop.after(Duration.ZERO, this::cdcPoll);
            loop.runUntil(() -> rowsDone == n, Scenario.T0.plus(Duration.ofHours(6)));
            Instant end = loop.now();
            Duration over = Duration.between(Scenario.T0, end);
            Map<String, Double> busy = new java.util.LinkedHashMap<>();
            cores.forEach((part, c) -> busy.put(part.name().toLowerCase(java.util.Locale.ROOT), c.utilization(over)));
            if (s.cpu().shared() > 0) {
                busy.put("shared", shared.utilization(over));
            }
            List<Duration> toRunning = new ArrayList<>();
            Instant last = Scenario.T0;
            for (Instant at : podsRunning) {
                Instant a = at == null ? end : at;
                toRunning.add(Duration.between(Scenario.T0, a));
                last = a.isAfter(last) ? a : last;
            }
            toRunning.sort(Comparator.naturalOrder());
            Instant lastPost = Scenario.T0;
            for (Instant at : posted) {
                Instant a = at == null ? end : at;
                lastPost = a.isAfter(lastPost) ? a : lastPost;
            }
            Instant lastRow = Scenario.T0;
            for (Instant at : rowRunning) {
                Instant a = at == null ? end : at;
                lastRow = a.isAfter(lastRow) ? a : lastRow;
            }
            return new Result(
                    s,
                    n,
                    Duration.between(Scenario.T0, last),
                    Goodput.percentile(toRunning, 0.5),
                    Goodput.percentile(toRunning, 0.99),
                    Duration.between(Scenario.T0, lastRow),
                    Duration.between(Scenario.T0, lastPost),
                    busy);
        }

        private int rowsDone;

        // ---- cdc-ingest ----

        private void cdcPoll() {
            if (cdcPolling || binlog.isEmpty()) {
                return;
            }
            cdcPolling = true;
            List<Job> batch = new ArrayList<>();
            while (!binlog.isEmpty() && batch.size() < 2048) {
                batch.add(binlog.poll());
            }
            List<Segment> work = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                work.add(cpu(Part.CDC, 1));
            }
            cdc.submit(work, () -> {
                for (Job job : batch) {
                    hop(s.hops().kafkaHop(), () -> toScheduler('S', job));
                }
                loop.after(s.hops().cdcPoll(), () -> {
                    cdcPolling = false;
                    cdcPoll();
                });
            });
        }

        // ---- scheduler-streams ----

        private void toScheduler(char kind, Job job) {
            input.add(new Input(kind, job, loop.now()));
            streamNext();
        }

        private void streamNext() {
            if (streamBusy) {
                return;
            }
            if (!uncommitted.isEmpty() && !loop.now().isBefore(commitDue())) {
                streamBusy = true;
                List<Runnable> out = List.copyOf(uncommitted);
                uncommitted.clear();
                stream.submit(List.of(new Wait(s.hops().commit())), () -> {
                    lastCommit = loop.now();
                    freshSinceCommit = false;
                    out.forEach(Runnable::run);
                    streamBusy = false;
                    streamNext();
                });
                return;
            }
            Input record = input.poll();
            if (record == null) {
                if (!uncommitted.isEmpty() && !commitTimer) {
                    commitTimer = true;
                    loop.at(commitDue(), () -> {
                        commitTimer = false;
                        streamNext();
                    });
                }
                return;
            }
            streamBusy = true;
            stream.submit(List.of(cpu(Part.SCHEDULER, 3)), () -> {
                decide(record);
                if (Duration.between(record.appended(), loop.now())
                                .compareTo(s.hops().freshInput())
                        < 0) {
                    freshSinceCommit = true;
                }
                streamBusy = false;
                streamNext();
            });
        }

        /** Whether a record decided since the last commit was younger than freshInput when it was read. */
        private boolean freshSinceCommit;

        /** An early commit for fresh input (at most one per gap), else the commit interval. */
        private Instant commitDue() {
            return lastCommit.plus(
                    freshSinceCommit ? s.hops().earlyCommitGap() : s.hops().commitInterval());
        }

        private void decide(Input record) {
            Job job = record.job();
            int queue = job.queue(clusters);
            switch (record.kind()) {
                case 'S' -> {
                    uncommitted.add(() -> toSink(job, false));
                    if (acquiring.getOrDefault(queue, 0) < s.concurrency().acquirersPerQueue()) {
                        acquiring.merge(queue, 1, Integer::sum);
                        uncommitted.add(() -> command(job, false));
                    } else {
                        waitingJobs
                                .computeIfAbsent(queue, q -> new ArrayDeque<>())
                                .add(job);
                    }
                }
                case 'P' -> uncommitted.add(() -> command(job, true));
                case 'R' -> {
                    uncommitted.add(() -> toSink(job, true));
                    acquiring.merge(queue, -1, Integer::sum);
                    Job next =
                            waitingJobs.getOrDefault(queue, new ArrayDeque<>()).poll();
                    if (next != null) {
                        acquiring.merge(queue, 1, Integer::sum);
                        uncommitted.add(() -> command(next, false));
                    }
                }
                default -> throw new IllegalStateException("no input " + record.kind());
            }
        }

        // ---- executor ----

        private void command(Job job, boolean ensureJob) {
            hop(s.hops().kafkaHop(), () -> {
                commands.add(job);
                commandIsJob.add(ensureJob);
                pollCommands();
            });
        }

        /** One poll: its commands partition by partition, each partition's lanes at once, committed when all are done. */
        private void pollCommands() {
            if (loopBusy || commandsTaken == commands.size()) {
                return;
            }
            loopBusy = true;
            int end = Math.min(commands.size(), commandsTaken + s.concurrency().maxPoll());
            Map<Integer, List<Integer>> byPartition = new java.util.TreeMap<>();
            for (int i = commandsTaken; i < end; i++) {
                byPartition
                        .computeIfAbsent(
                                commands.get(i).cluster() % s.concurrency().commandPartitions(), p -> new ArrayList<>())
                        .add(i);
            }
            commandsTaken = end;
            runPartitions(new ArrayDeque<>(byPartition.values()));
        }

        private void runPartitions(Queue<List<Integer>> partitions) {
            List<Integer> partition = partitions.poll();
            if (partition == null) {
                loopBusy = false;
                pollCommands();
                return;
            }
            int[] left = {partition.size()};
            List<Runnable> flushed = new ArrayList<>();
            Runnable laneDone = () -> {
                if (--left[0] == 0) {
                    // the batch's commit: offsets, after its events were flushed
                    commandLoop.submit(List.of(new Wait(s.hops().kafkaHop())), () -> {
                        flushed.forEach(Runnable::run);
                        runPartitions(partitions);
                    });
                }
            };
            for (int index : partition) {
                Job job = commands.get(index);
                if (commandIsJob.get(index)) {
                    List<Segment> work = new ArrayList<>();
                    work.add(cpu(Part.EXECUTOR, 3));
                    work.add(new Wait(s.api().k8sCall().multipliedBy(s.api().k8sCallsPerJob())));
                    laneThreads.submit(work, () -> {
                        posted[job.id()] = loop.now();
                        podsMayRun(job);
                        laneDone.run();
                    });
                } else {
                    // the first step goes to the step threads; the lane is free at once
                    // first step: look-ups and the create; the operation is looked at one poll interval later
                    List<Segment> first = List.of(
                            cpu(Part.EXECUTOR, 6),
                            new Wait(s.api().gkeCall().multipliedBy(s.api().gkeCallsFirstStep())));
                    List<Segment> second = List.of(
                            cpu(Part.EXECUTOR, 6),
                            new Wait(s.api()
                                    .gkeCall()
                                    .multipliedBy(
                                            s.api().gkeCallsPerPool() - s.api().gkeCallsFirstStep())));
                    stepThreads.submit(first, () -> {
                        // the fleet answers at once: the pool is RUNNING when the create returns
                        hop(s.fleet().nodesUp(), () -> {
                            nodesReady[job.id()] = loop.now();
                            podsMayRun(job);
                        });
                        // the second step: at once when the node informer sees the nodes, else at the next poll
                        Duration untilSecond = s.fleet().nodeEvents()
                                        && s.fleet().nodesUp().compareTo(s.api().operationPoll()) < 0
                                ? s.fleet().nodesUp()
                                : s.api().operationPoll();
                        loop.after(untilSecond, () -> stepThreads.submit(second, () -> nodePoolReady(job)));
                    });
                    laneDone.run();
                }
            }
        }

        /** NodePoolReady: a reservation pool is ready once RUNNING (its nodes come for its pods). */
        private void nodePoolReady(Job job) {
            hop(s.hops().kafkaHop(), () -> toScheduler('P', job));
        }

        private void podsMayRun(Job job) {
            if (posted[job.id()] == null || nodesReady[job.id()] == null || podsRunning[job.id()] != null) {
                return;
            }
            podsRunning[job.id()] = Instant.MIN; // taken
            hop(s.fleet().podStart(), () -> {
                podsRunning[job.id()] = loop.now();
                // the pod informer's event, then JobRunning to the scheduler
                informer.submit(
                        List.of(cpu(Part.EXECUTOR, 3)), () -> hop(s.hops().kafkaHop(), () -> toScheduler('R', job)));
            });
        }

        // ---- status-sink ----

        private void toSink(Job job, boolean running) {
            hop(s.hops().kafkaHop(), () -> {
                statuses.add(new Status(job, running));
                drainSink();
            });
        }

        private void drainSink() {
            if (sinkBusy || statuses.isEmpty()) {
                return;
            }
            sinkBusy = true;
            List<Status> batch = new ArrayList<>();
            while (!statuses.isEmpty() && batch.size() < 500) {
                batch.add(statuses.poll());
            }
            List<Segment> work = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                work.add(cpu(Part.SINK, 2));
            }
            work.add(new Wait(s.hops().dbWrite()));
            sink.submit(work, () -> {
                for (Status status : batch) {
                    if (status.running()) {
                        rowRunning[status.job().id()] = loop.now();
                        rowsDone++;
                    }
                }
                sinkBusy = false;
                drainSink();
            });
        }
    }
}
