package io.falcon.faults.replay;

import io.falcon.events.Meta;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.PolicyYaml;
import io.falcon.faults.core.PolicyRules;
import io.falcon.faults.topology.FaultTopologyOptions;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Backtests a policy: {@code ReplayMain --trace faults.jsonl --policy policy.yaml [--job-window 30s] [--grace 5s]
 * [--no-jobless]} runs the real topology over the trace and prints verdicts and isolation changes as JSON lines to
 * stdout, then a summary line to stderr. Exit 2 for bad arguments, an unreadable trace or an invalid policy.
 */
public final class ReplayMain {
    private ReplayMain() {}

    public static void main(String[] args) throws Exception {
        System.exit(runFromCommandLine(args));
    }

    /**
     * Runs with stdout holding only the JSON lines: everything else that writes to System.out while the replay
     * runs (the logging of the topology and of Kafka Streams) is sent to stderr, so the output can be piped.
     */
    public static int runFromCommandLine(String[] args) throws Exception {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        System.setOut(stderr);
        try {
            return run(args, stdout, stderr);
        } finally {
            System.setOut(stdout);
        }
    }

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Path trace = null;
        Path policyFile = null;
        FaultTopologyOptions options = FaultTopologyOptions.defaults();
        Duration window = options.jobWindow();
        Duration grace = options.grace();
        boolean jobless = true;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--trace" -> {
                    trace = Path.of(value);
                    i++;
                }
                case "--policy" -> {
                    policyFile = Path.of(value);
                    i++;
                }
                case "--job-window" -> {
                    window = Duration.parse("PT" + value);
                    i++;
                }
                case "--grace" -> {
                    grace = Duration.parse("PT" + value);
                    i++;
                }
                case "--no-jobless" -> jobless = false;
                default -> {
                    err.println("unknown argument " + args[i]);
                    return usage(err);
                }
            }
        }
        if (trace == null || policyFile == null) {
            return usage(err);
        }
        PolicyRules.Validated validated = PolicyYaml.parse(
                Files.readString(policyFile, StandardCharsets.UTF_8), 1, Meta.of("fault-replay", Instant.EPOCH));
        if (validated instanceof PolicyRules.Invalid invalid) {
            err.println(invalid.message());
            return 2;
        }
        IsolationPolicy policy = ((PolicyRules.Valid) validated).policy();
        List<DeviceFault> faults = Replay.readTrace(trace).toList();
        Instant start = faults.isEmpty()
                ? Instant.EPOCH
                : Instant.ofEpochMilli(faults.get(0).receiveTimeMs());
        FaultTopologyOptions replayOptions = new FaultTopologyOptions(
                window, grace, options.decideInterval(), options.releaseCheckInterval(), jobless, true);
        try (Replay replay = new Replay(replayOptions, policy, start, out::println)) {
            faults.forEach(replay::feed);
            replay.finish();
            err.println("replayed " + faults.size() + " faults: " + replay.verdictCount() + " verdicts, "
                    + replay.isolationCount() + " isolation changes");
        }
        return 0;
    }

    private static int usage(PrintStream err) {
        err.println("usage: ReplayMain --trace FAULTS.jsonl --policy POLICY.yaml [--job-window 30s] [--grace 5s]"
                + " [--no-jobless]");
        return 2;
    }
}
