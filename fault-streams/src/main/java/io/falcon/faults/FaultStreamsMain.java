package io.falcon.faults;

import io.falcon.events.Settings;
import io.falcon.ops.ComponentRuntime;
import io.falcon.ops.StreamsChecks;

/** Runs fault-streams with its ops endpoints until the JVM is asked to stop. */
public final class FaultStreamsMain {
    private FaultStreamsMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        FaultStreamsConfig config = FaultStreamsConfig.from(Settings.fromEnvironment());
        ComponentRuntime runtime = ComponentRuntime.start("fault-streams", System.getenv());
        FaultStreamsApp app = runtime.manage("fault-streams", new FaultStreamsApp(config, runtime.metrics()).start());
        runtime.ops().addReadinessCheck(StreamsChecks.ready("kafka-streams", app.streams()))
                .addLivenessCheck(StreamsChecks.alive("kafka-streams", app.streams()));
        runtime.awaitShutdown();
    }
}
