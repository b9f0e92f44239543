package io.falcon.faults;

import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.security.KafkaConnection;
import io.falcon.faults.topology.FaultTopologyOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Typed settings of fault-streams: a view of its catalog settings ({@link FaultStreamsKeys}). */
public record FaultStreamsConfig(
        KafkaConnection kafka,
        String applicationId,
        String stateDir,
        short replicationFactor,
        int streamThreads,
        FaultTopologyOptions topology,
        Optional<Path> policyFile,
        Duration policyPollInterval,
        Duration sessionTimeout,
        Duration commitInterval) {

    /** Parses raw settings (keys or environment names); every problem is reported at once. */
    public static FaultStreamsConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(FaultStreamsKeys.COMPONENT, raw));
    }

    public static FaultStreamsConfig from(SettingValues values) {
        return new FaultStreamsConfig(
                KafkaConnection.from(values),
                values.get(FaultStreamsKeys.APPLICATION_ID),
                values.get(FaultStreamsKeys.STATE_DIR),
                (short) values.getInt(SharedKeys.KAFKA_REPLICATION_FACTOR),
                values.getInt(FaultStreamsKeys.STREAM_THREADS),
                new FaultTopologyOptions(
                        values.get(FaultStreamsKeys.JOB_WINDOW),
                        values.get(FaultStreamsKeys.GRACE),
                        values.get(FaultStreamsKeys.ALLOWED_LATENESS),
                        values.get(FaultStreamsKeys.DECIDE_INTERVAL),
                        values.get(FaultStreamsKeys.RELEASE_CHECK_INTERVAL),
                        values.get(FaultStreamsKeys.STATE_SWEEP_INTERVAL),
                        values.get(FaultStreamsKeys.COUNT_JOBLESS_FAULTS),
                        false),
                values.find(FaultStreamsKeys.POLICY_FILE),
                values.get(FaultStreamsKeys.POLICY_POLL_INTERVAL),
                values.get(FaultStreamsKeys.SESSION_TIMEOUT),
                values.get(FaultStreamsKeys.COMMIT_INTERVAL));
    }
}
