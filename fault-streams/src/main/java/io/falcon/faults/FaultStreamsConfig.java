package io.falcon.faults;

import io.falcon.events.Settings;
import io.falcon.faults.topology.FaultTopologyOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Typed settings of fault-streams, validated when it starts. */
public record FaultStreamsConfig(
        String bootstrapServers,
        String applicationId,
        String stateDir,
        short replicationFactor,
        int streamThreads,
        FaultTopologyOptions topology,
        Optional<Path> policyFile,
        Duration policyPollInterval,
        Duration sessionTimeout,
        Duration commitInterval) {

    public static final String BOOTSTRAP_SERVERS = "falcon.kafka.bootstrap-servers";
    public static final String REPLICATION_FACTOR = "falcon.kafka.replication-factor";
    public static final String APPLICATION_ID = "falcon.faults.application-id";
    public static final String STATE_DIR = "falcon.faults.state-dir";
    public static final String STREAM_THREADS = "falcon.faults.stream-threads";
    public static final String JOB_WINDOW = "falcon.faults.job-window";
    public static final String GRACE = "falcon.faults.grace";
    public static final String ALLOWED_LATENESS = "falcon.faults.allowed-lateness";
    public static final String DECIDE_INTERVAL = "falcon.faults.decide-interval";
    public static final String RELEASE_CHECK_INTERVAL = "falcon.faults.release-check-interval";
    public static final String COUNT_JOBLESS_FAULTS = "falcon.faults.count-jobless-faults";
    public static final String POLICY_FILE = "falcon.faults.policy-file";
    public static final String POLICY_POLL_INTERVAL = "falcon.faults.policy-poll-interval";
    public static final String SESSION_TIMEOUT = "falcon.faults.session-timeout";
    public static final String COMMIT_INTERVAL = "falcon.faults.commit-interval";

    public static FaultStreamsConfig from(Settings settings) {
        return new FaultStreamsConfig(
                settings.required(BOOTSTRAP_SERVERS),
                settings.string(APPLICATION_ID, "falcon-fault-streams"),
                settings.string(STATE_DIR, System.getProperty("java.io.tmpdir") + "/falcon-fault-streams"),
                (short) settings.intBetween(REPLICATION_FACTOR, 3, 1, 5),
                settings.intBetween(STREAM_THREADS, 1, 1, 16),
                new FaultTopologyOptions(
                        settings.duration(JOB_WINDOW, Duration.ofSeconds(30)),
                        settings.duration(GRACE, Duration.ofSeconds(5)),
                        // a fault this far behind the job window's event time skips the window, counted directly
                        settings.duration(ALLOWED_LATENESS, FaultTopologyOptions.DEFAULT_ALLOWED_LATENESS),
                        settings.duration(DECIDE_INTERVAL, Duration.ofSeconds(1)),
                        settings.duration(RELEASE_CHECK_INTERVAL, Duration.ofMinutes(1)),
                        settings.bool(COUNT_JOBLESS_FAULTS, true), false),
                settings.find(POLICY_FILE).map(Path::of),
                settings.duration(POLICY_POLL_INTERVAL, Duration.ofSeconds(10)),
                // how long a crashed instance's tasks wait before another instance takes them over
                settings.duration(SESSION_TIMEOUT, Duration.ofSeconds(45)),
                // each exactly-once commit is a transaction round trip and a store flush; verdicts wait for the job
                // window (35 s) anyway, so a second more buys throughput for little
                settings.duration(COMMIT_INTERVAL, Duration.ofSeconds(1)));
    }
}
