package io.falcon.scheduler;

import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.ops.ComponentRuntime;
import io.falcon.ops.StreamsChecks;

/** Runs scheduler-streams with its ops endpoints until the JVM is asked to stop. */
public final class SchedulerMain {
    private SchedulerMain() {}

    public static void main(String[] args) throws InterruptedException {
        SettingValues settings = ComponentRuntime.settingsOrExit(SchedulerKeys.COMPONENT);
        SchedulerConfig config = SchedulerConfig.from(settings);
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        SchedulerApp app = runtime.manage("scheduler", new SchedulerApp(config, runtime.metrics()).start());
        runtime.ops()
                .addReadinessCheck(StreamsChecks.ready("kafka-streams", app.streams()))
                .addLivenessCheck(StreamsChecks.alive("kafka-streams", app.streams()));
        runtime.awaitShutdown();
    }
}
