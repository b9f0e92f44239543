package io.falcon.bench.executor;

import io.falcon.embedded.EmbeddedKafka;
import io.falcon.events.Topics;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Runs the phases asked for, one after the other on one broker, and prints their table. */
final class ExecutorThroughput {
    /** The goal the executor's throughput is measured against, for the phase with its defaults. */
    static final double GOAL_JOBS_PER_SECOND = 50;

    private ExecutorThroughput() {}

    /**
     * Creates the executor's topics (with {@code options.partitions()} partitions) and runs each phase.
     *
     * @param runId distinguishes this run's job ids and consumer groups from another run's on the same broker
     */
    static List<PhaseResult> run(EmbeddedKafka kafka, ThroughputOptions options, String runId, PrintStream progress)
            throws InterruptedException {
        kafka.createTopics(
                options.partitions(),
                Topics.EXECUTOR_COMMANDS.name(),
                Topics.EXECUTOR_EVENTS.name(),
                Topics.DEAD_LETTER.name());
        List<PhaseResult> results = new ArrayList<>();
        for (ThroughputOptions.PhaseKind kind : options.phases()) {
            String tag = "xtput-" + runId + "-" + kind.wireName;
            results.add(new ThroughputPhase(kafka.bootstrapServers(), options, kind, tag, progress).run());
        }
        return results;
    }

    /** One markdown table, a row per phase; the goal is judged for the defaults phase. */
    static void printTable(PrintStream out, ThroughputOptions options, List<PhaseResult> results) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "phase",
                "command lanes",
                "pool step threads",
                "Jobs created",
                "jobs/s",
                "command -> Job p50",
                "p99",
                "JVM CPU / job",
                "executor threads CPU / job",
                "goal",
                "met?",
                "notes"));
        for (PhaseResult r : results) {
            boolean judged = r.kind() == ThroughputOptions.PhaseKind.DEFAULTS;
            boolean met = r.complete() && r.jobsPerSecond() >= GOAL_JOBS_PER_SECOND;
            rows.add(List.of(
                    label(r, options),
                    Integer.toString(r.lanes()),
                    Integer.toString(r.stepThreads()),
                    r.jobsCreated() + " of " + r.jobs(),
                    String.format(Locale.ROOT, "%.1f", r.jobsPerSecond()),
                    r.commandToJob().p50(),
                    r.commandToJob().p99(),
                    String.format(Locale.ROOT, "%.1f ms", r.processCpuMillisPerJob()),
                    String.format(Locale.ROOT, "%.1f ms", r.executorCpuMillisPerJob()),
                    judged ? String.format(Locale.ROOT, ">= %.0f jobs/s", GOAL_JOBS_PER_SECOND) : "",
                    judged ? (met ? "yes" : "no") : "",
                    notes(r, options)));
        }
        printMarkdown(out, rows);
    }

    /** Where each phase's time went: the two legs of a job's way, and the API calls per job. */
    static void printBreakdown(PrintStream out, List<PhaseResult> results) {
        for (PhaseResult r : results) {
            out.printf(
                    Locale.ROOT,
                    "%s: EnsureNodePool -> NodePoolReady read p50 %s p99 %s; EnsureJob -> Job created p50 %s p99 %s;"
                            + " %.1f s from the first command to the last Job; JVM CPU %.1f s (executor threads %.1f s)%n",
                    r.kind().wireName,
                    r.commandToPoolReady().p50(),
                    r.commandToPoolReady().p99(),
                    r.ensureJobToJob().p50(),
                    r.ensureJobToJob().p99(),
                    r.span().toMillis() / 1e3,
                    r.cpu().processNanos() / 1e9,
                    r.cpu().executorThreadNanos() / 1e9);
            StringBuilder calls = new StringBuilder("  API calls per job:");
            for (Map.Entry<String, Long> call : r.apiCalls().entrySet()) {
                calls.append(String.format(
                        Locale.ROOT, " %s %.2f", call.getKey(), (double) call.getValue() / Math.max(1, r.jobs())));
            }
            out.println(calls);
            r.failures().entrySet().stream()
                    .limit(3)
                    .forEach(f -> out.printf("  failed: %s: %s%n", f.getKey(), f.getValue()));
        }
    }

    private static String label(PhaseResult r, ThroughputOptions options) {
        if (r.kind() == ThroughputOptions.PhaseKind.BASELINE) {
            return "(a) baseline, one after another";
        }
        boolean overridden =
                options.lanes().isPresent() || options.stepThreads().isPresent();
        return overridden ? "(b) lanes / step threads as given" : "(b) defaults (settings catalog)";
    }

    private static String notes(PhaseResult r, ThroughputOptions options) {
        List<String> notes = new ArrayList<>();
        if (r.kind() == ThroughputOptions.PhaseKind.BASELINE && r.jobs() != options.jobs()) {
            notes.add("own job count (--baseline-jobs " + r.jobs() + "): one after another, each EnsureNodePool"
                    + " holds the command loop for its first step's GKE calls");
        }
        if (!r.failures().isEmpty()) {
            notes.add(r.failures().size() + " failed");
        }
        if (!r.complete() && r.failures().size() < r.jobs() - r.jobsCreated()) {
            notes.add("timed out after " + options.phaseTimeout());
        }
        return String.join("; ", notes);
    }

    private static void printMarkdown(PrintStream out, List<List<String>> rows) {
        int columns = rows.get(0).size();
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        for (int n = 0; n < rows.size(); n++) {
            StringBuilder line = new StringBuilder("|");
            for (int i = 0; i < columns; i++) {
                String cell = rows.get(n).get(i);
                line.append(' ')
                        .append(cell)
                        .append(" ".repeat(width[i] - cell.length()))
                        .append(" |");
            }
            out.println(line);
            if (n == 0) {
                StringBuilder rule = new StringBuilder("|");
                for (int w : width) {
                    rule.append("-".repeat(w + 2)).append('|');
                }
                out.println(rule);
            }
        }
    }
}
