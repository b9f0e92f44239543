package io.falcon.scheduler;

import io.falcon.events.Settings;
import io.falcon.ops.ComponentRuntime;
import io.falcon.ops.StreamsChecks;

/** Runs scheduler-streams with its ops endpoints until the JVM is asked to stop. */
public final class SchedulerMain {
    private SchedulerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        SchedulerConfig config = SchedulerConfig.from(Settings.fromEnvironment());
        ComponentRuntime runtime = ComponentRuntime.start("scheduler", System.getenv());
        SchedulerApp app = runtime.manage("scheduler", new SchedulerApp(config, runtime.metrics()).start());
        runtime.ops().addReadinessCheck(StreamsChecks.ready("kafka-streams", app.streams()))
                .addLivenessCheck(StreamsChecks.alive("kafka-streams", app.streams()));
        runtime.awaitShutdown();
    }
}
