package io.falcon.scheduler;

import io.falcon.events.PriorityLimits;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.config.Setting;
import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.security.KafkaConnection;
import io.falcon.scheduler.core.Admission;
import io.falcon.scheduler.core.SchedulerSettings;
import io.falcon.scheduler.core.WhoIsAhead;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/** Typed settings of scheduler-streams: a view of its catalog settings ({@link SchedulerKeys}). */
public record SchedulerConfig(
        KafkaConnection kafka,
        String applicationId,
        String stateDir,
        short replicationFactor,
        int streamThreads,
        Duration tickInterval,
        Duration commitInterval,
        Duration sessionTimeout,
        SchedulerSettings scheduling) {

    /** Parses raw settings (keys or environment names); every problem is reported at once. */
    public static SchedulerConfig from(Map<String, String> raw) {
        return from(SettingValues.parse(SchedulerKeys.COMPONENT, raw));
    }

    public static SchedulerConfig from(SettingValues values) {
        return new SchedulerConfig(
                KafkaConnection.from(values),
                values.get(SchedulerKeys.APPLICATION_ID),
                values.get(SchedulerKeys.STATE_DIR),
                (short) values.getInt(SharedKeys.KAFKA_REPLICATION_FACTOR),
                values.getInt(SchedulerKeys.STREAM_THREADS),
                values.get(SchedulerKeys.TICK_INTERVAL),
                values.get(SchedulerKeys.COMMIT_INTERVAL),
                values.get(SchedulerKeys.SESSION_TIMEOUT),
                new SchedulerSettings(
                        values.get(SchedulerKeys.RESERVATION_RETRY),
                        values.get(SchedulerKeys.PROVISIONING_RETRY),
                        values.get(SchedulerKeys.PROVISIONING_BACKSTOP),
                        values.get(SchedulerKeys.DISPATCH_RETRY),
                        values.get(SchedulerKeys.SUBMIT_DEADLINE),
                        values.get(SchedulerKeys.DISPATCH_DEADLINE),
                        values.get(SchedulerKeys.DEFAULT_EXECUTION_TIMEOUT),
                        values.get(SchedulerKeys.ABORT_RETRY),
                        values.get(SchedulerKeys.CLEANUP_RETRY),
                        values.get(SchedulerKeys.ORPHAN_GRACE),
                        values.getInt(SchedulerKeys.POSITION_UPDATES),
                        values.get(SchedulerKeys.TERMINAL_RETENTION),
                        idleLinger(values),
                        values.get(SchedulerKeys.PRIORITY_AGING),
                        values.get(SchedulerKeys.ESTIMATE_TOLERANCE),
                        java.time.ZoneId.of(values.get(SchedulerKeys.MESSAGE_TIME_ZONE)),
                        values.get(SchedulerKeys.MOVE_GAIN),
                        values.get(SchedulerKeys.MOVE_INTERVAL),
                        values.get(SchedulerKeys.OBSERVATION_SLACK),
                        values.get(SharedKeys.INSTALLATION),
                        new Admission(
                                PriorityLimits.parse(values.get(SchedulerKeys.PRIORITY_LIMITS)),
                                values.getInt(SchedulerKeys.MAX_SPEC_BYTES),
                                values.getInt(SchedulerKeys.MAX_LIVE_JOBS_PER_ACTOR),
                                values.getInt(SchedulerKeys.MAX_LIVE_JOBS)),
                        WhoIsAhead.of(values.get(SchedulerKeys.WHO_IS_AHEAD)),
                        values.getInt(SchedulerKeys.ACQUIRERS_PER_QUEUE),
                        values.get(SchedulerKeys.HISTORY_LINGER_MAX),
                        new SchedulerSettings.Retries(
                                values.getInt(SchedulerKeys.RETRY_MAX_RETRIES),
                                values.get(SchedulerKeys.RETRY_BACKOFF),
                                values.get(SchedulerKeys.RETRY_MAX_BACKOFF),
                                values.get(SchedulerKeys.RETRY_ENABLED),
                                values.getInt(SchedulerKeys.RETRY_PER_CLUSTER_PER_HOUR))));
    }

    /** Only the supply modes that linger: zero (the default) means the pool is deleted at once. */
    private static Map<SupplyMode, Duration> idleLinger(SettingValues values) {
        Map<SupplyMode, Setting<Duration>> settings = Map.of(
                SupplyMode.RESERVATION, SchedulerKeys.IDLE_LINGER_RESERVATION,
                SupplyMode.ON_DEMAND, SchedulerKeys.IDLE_LINGER_ON_DEMAND,
                SupplyMode.FLEX_START, SchedulerKeys.IDLE_LINGER_FLEX_START);
        Map<SupplyMode, Duration> linger = new EnumMap<>(SupplyMode.class);
        settings.forEach((mode, setting) -> {
            Duration duration = values.get(setting);
            if (!duration.isZero()) {
                linger.put(mode, duration);
            }
        });
        return linger;
    }
}
