package io.falcon.scheduler;

import io.falcon.events.Settings;
import io.falcon.events.executor.SupplyMode;
import io.falcon.scheduler.core.SchedulerSettings;
import java.time.Duration;

/** Typed settings of scheduler-streams, validated when it starts. */
public record SchedulerConfig(
        String bootstrapServers,
        String applicationId,
        String stateDir,
        short replicationFactor,
        int streamThreads,
        Duration tickInterval,
        Duration sessionTimeout,
        SchedulerSettings scheduling) {

    public static SchedulerConfig from(Settings settings) {
        return new SchedulerConfig(
                settings.required("falcon.kafka.bootstrap-servers"),
                settings.string("falcon.scheduler.application-id", "falcon-scheduler"),
                settings.string("falcon.scheduler.state-dir", System.getProperty("java.io.tmpdir") + "/falcon-scheduler"),
                (short) settings.intBetween("falcon.kafka.replication-factor", 3, 1, 5),
                settings.intBetween("falcon.scheduler.stream-threads", 1, 1, 16),
                settings.duration("falcon.scheduler.tick-interval", Duration.ofSeconds(1)),
                // how long a crashed instance's tasks wait before another instance takes them over
                settings.duration("falcon.scheduler.session-timeout", Duration.ofSeconds(45)),
                scheduling(settings));
    }

    private static SchedulerSettings scheduling(Settings settings) {
        SchedulerSettings defaults = SchedulerSettings.defaults();
        return new SchedulerSettings(
                settings.duration("falcon.scheduler.reservation-retry", defaults.reservationRetry()),
                settings.duration("falcon.scheduler.provisioning-retry", defaults.provisioningRetry()),
                // keep it above the executor's falcon.executor.node-pool.create-timeout, which normally fires first
                settings.duration("falcon.scheduler.provisioning-backstop", defaults.provisioningBackstop()),
                settings.duration("falcon.scheduler.dispatch-retry", defaults.dispatchRetry()),
                settings.duration("falcon.scheduler.submit-deadline", defaults.submitDeadline()),
                settings.duration("falcon.scheduler.dispatch-deadline", defaults.dispatchDeadline()),
                settings.duration("falcon.scheduler.default-execution-timeout", defaults.defaultExecutionTimeout()),
                settings.duration("falcon.scheduler.abort-retry", defaults.abortRetry()),
                settings.duration("falcon.scheduler.cleanup-retry", defaults.cleanupRetry()),
                settings.duration("falcon.scheduler.orphan-grace", defaults.orphanGrace()),
                settings.intBetween("falcon.scheduler.position-updates", defaults.positionUpdates(), 1, 10_000),
                idleLinger(settings));
    }

    /** falcon.scheduler.idle-linger.reservation / .on-demand / .flex-start (default 0: deleted at once). */
    private static java.util.Map<SupplyMode, Duration> idleLinger(Settings settings) {
        java.util.Map<SupplyMode, Duration> linger = new java.util.EnumMap<>(SupplyMode.class);
        for (SupplyMode mode : SupplyMode.values()) {
            Duration d = settings.duration("falcon.scheduler.idle-linger." + mode.wireName(), Duration.ZERO);
            if (!d.isZero()) {
                linger.put(mode, d);
            }
        }
        return linger;
    }
}
