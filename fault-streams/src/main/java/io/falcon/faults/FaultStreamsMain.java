package io.falcon.faults;

import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.ops.ComponentRuntime;
import io.falcon.ops.StreamsChecks;

/** Runs fault-streams with its ops endpoints until the JVM is asked to stop. */
public final class FaultStreamsMain {
    private FaultStreamsMain() {}

    public static void main(String[] args) throws InterruptedException {
        SettingValues settings = ComponentRuntime.settingsOrExit(FaultStreamsKeys.COMPONENT);
        FaultStreamsConfig config = FaultStreamsConfig.from(settings);
        ComponentRuntime runtime = ComponentRuntime.start(settings);
        FaultStreamsApp app = runtime.manage("fault-streams", new FaultStreamsApp(config, runtime.metrics()).start());
        runtime.ops()
                .addReadinessCheck(StreamsChecks.ready("kafka-streams", app.streams()))
                .addLivenessCheck(StreamsChecks.alive("kafka-streams", app.streams()));
        runtime.awaitShutdown();
    }
}
