package io.falcon.bench.e2e;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Where the CPU of a stage went, by component: every thread of this JVM (Falcon's five components, the broker,
 * fleet-sim, the harness) grouped by its name, and MariaDB (a child process). On a shared 2-core machine latencies
 * measure the box as much as Falcon; CPU time per job does not depend on what else runs, and tells what a job costs
 * each component and so how many jobs per second a core can carry. Threads that start and end inside a stage are
 * missed (few: the long-lived pools do the work); a thread shared by two components (gRPC's event loops serve both
 * the executor's client and the GKE simulator's server) is reported under its own shared name rather than guessed.
 */
final class CpuAccount {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Thread-name rules, first match wins; the name of a group says whose threads they are. */
    private static final List<Map.Entry<Pattern, String>> RULES = List.of(
            rule("-scheduler-.*StreamThread|scheduler.*producer|scheduler.*consumer", "falcon: scheduler-streams"),
            rule("fault-streams|fault-streams.*StreamThread", "falcon: fault-streams"),
            rule(
                    "falcon-executor|executor.*producer|executor.*consumer|informer|Executor.*Watch|falcon-jobs",
                    "falcon: executor"),
            rule("status-sink|statussink", "falcon: status-sink"),
            rule("debezium|blc-|binlog|cdc|change-event-source", "falcon: cdc-ingest (Debezium)"),
            rule(
                    "data-plane-kafka|kafka-request-handler|kafka-network-thread|raft|quorum|controller|broker-|"
                            + "ReplicaFetcher|LogCleaner|kafka-scheduler|ExpirationReaper|group-coordinator|"
                            + "transaction|share-coordinator|kafka-log|metadata-loader|kafka-0-|executor-Fetch|"
                            + "executor-Produce|executor-Rebalance|executor-Heartbeat|executor-DeleteRecords|"
                            + "executor-ElectLeader|executor-AlterAcls",
                    "broker (embedded KRaft)"),
            rule(
                    "vert\\.x|vertx|MockWebServer|mock-server|fleet-sim|fleetsim|HTTP-Dispatcher|sim-",
                    "fleet-sim (Kubernetes mock API servers, GKE/Compute simulators, their own clients)"),
            // fleet-sim's server and clients run on threads of their own (SimThreads): the libraries' default pools
            // left are the executor's clients'
            rule("grpc-nio|grpc-default|grpc-", "falcon: executor's GKE gRPC client"),
            rule("JdkHttpClientFactory|HttpClient-|OkHttp|okhttp", "falcon: executor's HTTP clients"),
            rule("^-[0-9]+-pool-[0-9]+-thread-", "falcon: executor's fabric8 tasks (informers, responses)"),
            // the JDK http client completes responses on the JVM's async pool (a new Thread-N per response when the
            // common pool has fewer than two threads), for the executor's clients and fleet-sim's alike
            rule("^Thread-[0-9]+$|ForkJoinPool.commonPool", "shared: JDK async pool (HTTP responses of both)"),
            rule("e2e-row-log|main|bench", "harness (row log, load)"),
            rule(
                    "C1 CompilerThread|C2 CompilerThread|GC |G1 |VM Thread|VM Periodic|Sweeper|Common-Cleaner",
                    "JVM (JIT, GC)"));

    private static Map.Entry<Pattern, String> rule(String regex, String component) {
        return Map.entry(Pattern.compile(regex, Pattern.CASE_INSENSITIVE), component);
    }

    /** CPU time of every live thread (by id, with its name) and of the child processes at one moment. */
    record Snapshot(Map<Long, Map.Entry<String, Long>> threads, long childrenNanos, long wallNanos) {}

    static Snapshot take() {
        Map<Long, Map.Entry<String, Long>> threads = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            long cpu = THREADS.getThreadCpuTime(id);
            ThreadInfo info = THREADS.getThreadInfo(id);
            if (cpu >= 0 && info != null) {
                threads.put(id, Map.entry(info.getThreadName(), cpu));
            }
        }
        long children = ProcessHandle.current()
                .descendants()
                .mapToLong(
                        p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
                .sum();
        return new Snapshot(threads, children, System.nanoTime());
    }

    static String component(String threadName) {
        for (Map.Entry<Pattern, String> r : RULES) {
            if (r.getKey().matcher(threadName).find()) {
                return r.getValue();
            }
        }
        return "other";
    }

    /** The thread's name with numbers and ids folded, so a pool's threads group together. */
    static String family(String threadName) {
        return threadName
                .replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>")
                .replaceAll("[0-9]+", "#");
    }

    /**
     * Prints CPU seconds by component between two snapshots, with the share of the whole and the milliseconds per
     * job when {@code jobs} is positive; then the busiest thread families of "other", so no time hides there.
     */
    static void print(PrintStream out, String stage, Snapshot before, Snapshot after, int jobs) {
        Map<String, Long> byComponent = new TreeMap<>();
        Map<String, Long> otherFamilies = new HashMap<>();
        for (Map.Entry<Long, Map.Entry<String, Long>> t : after.threads().entrySet()) {
            long start = before.threads().containsKey(t.getKey())
                    ? before.threads().get(t.getKey()).getValue()
                    : 0L; // started during the stage
            long used = t.getValue().getValue() - start;
            String component = component(t.getValue().getKey());
            byComponent.merge(component, used, Long::sum);
            if (component.equals("other")) {
                otherFamilies.merge(family(t.getValue().getKey()), used, Long::sum);
            }
        }
        byComponent.put("MariaDB (child process)", after.childrenNanos() - before.childrenNanos());
        long total = byComponent.values().stream().mapToLong(Long::longValue).sum();
        double wall = (after.wallNanos() - before.wallNanos()) / 1e9;
        out.printf(
                Locale.ROOT,
                "CPU during stage %s: %.1f s over %.1f s of wall time (%.2f cores busy)%s%n",
                stage,
                total / 1e9,
                wall,
                total / 1e9 / wall,
                jobs > 0 ? String.format(Locale.ROOT, ", %d jobs: %.1f ms per job", jobs, total / 1e6 / jobs) : "");
        Map<String, Long> sorted = new LinkedHashMap<>();
        byComponent.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            out.printf(
                    Locale.ROOT,
                    "  %-66s %7.1f s %5.1f %%%s%n",
                    e.getKey(),
                    e.getValue() / 1e9,
                    100.0 * e.getValue() / Math.max(1, total),
                    jobs > 0 ? String.format(Locale.ROOT, " %7.1f ms/job", e.getValue() / 1e6 / jobs) : "");
        }
        otherFamilies.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(8)
                .forEach(e -> out.printf(Locale.ROOT, "    other: %-60s %7.1f s%n", e.getKey(), e.getValue() / 1e9));
    }
}
