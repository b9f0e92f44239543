package io.falcon.scheduler;

import io.falcon.events.Settings;

/** Runs scheduler-streams until stopped. */
public final class SchedulerMain {
    private SchedulerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        SchedulerApp app = new SchedulerApp(SchedulerConfig.from(Settings.fromEnvironment())).start();
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "scheduler-shutdown"));
        Thread.currentThread().join();
    }
}
