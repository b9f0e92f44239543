package io.falcon.executor;

import io.falcon.events.Meta;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.executor.k8s.JobStatusReconciler;
import io.falcon.executor.kafka.KafkaEventSink;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the scheduler, every heartbeat interval, how far each watched cluster is observed: it evaluates every Job
 * of every cluster whose informers are watching (reporting what was not reported yet), waits until the broker has
 * acknowledged every send, and then sends a {@link ExecutorEvent.Heartbeat} to every partition of the events topic
 * saying those clusters are observed through the time the pass began, or through the oldest send not on the topic
 * if older. The scheduler fires a deadline only once the job's cluster is observed through it, so the scheduler's
 * own stall or restart, or this process's, never turns a met deadline into a missed one.
 */
public final class ExecutorHeartbeats implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ExecutorHeartbeats.class);

    private final JobStatusReconciler reconciler;
    private final KafkaEventSink sink;
    private final Clock clock;
    private final String producer;
    private final String instance;

    public ExecutorHeartbeats(
            JobStatusReconciler reconciler, KafkaEventSink sink, Clock clock, String producer, String instance) {
        this.reconciler = reconciler;
        this.sink = sink;
        this.clock = clock;
        this.producer = producer;
        this.instance = instance;
    }

    @Override
    public void run() {
        try {
            beat();
        } catch (RuntimeException e) {
            // the next beat tries again; meanwhile the scheduler's deadlines wait, which is the safe side
            log.warn("executor heartbeat failed: {}", e.toString());
        }
    }

    /** One pass and its heartbeat. */
    void beat() {
        Instant passBegan = clock.instant();
        boolean reportAgain = sink.failedSince().isPresent();
        var observed = reconciler.observeAll(reportAgain, passBegan);
        sink.flush();
        if (reportAgain) {
            sink.reportedAgainFrom(passBegan);
        }
        Instant through = sink.outstandingSince()
                .filter(oldest -> oldest.isBefore(passBegan))
                .orElse(passBegan);
        sink.broadcast(new ExecutorEvent.Heartbeat(
                Meta.of(producer, clock.instant()),
                "",
                "",
                "",
                instance,
                observed.stream()
                        .map(c -> new ExecutorEvent.ClusterObserved(c.clusterResource(), through, c.observingSince()))
                        .toList()));
    }
}
