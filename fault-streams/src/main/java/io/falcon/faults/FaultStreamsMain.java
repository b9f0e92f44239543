package io.falcon.faults;

import io.falcon.events.Settings;

/** Runs fault-streams until stopped. */
public final class FaultStreamsMain {
    private FaultStreamsMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        FaultStreamsApp app = new FaultStreamsApp(FaultStreamsConfig.from(Settings.fromEnvironment())).start();
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "fault-streams-shutdown"));
        Thread.currentThread().join();
    }
}
