package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Issue 18: the fault story in the job's own status. */
class FaultNotesTest {
    private static FaultVerdict verdict(
            String jobId, String cluster, String device, String code, FaultVerdict.Outcome outcome) {
        return new FaultVerdict(
                Meta.of("fault-streams", java.time.Instant.parse("2026-12-02T10:00:00Z")),
                cluster,
                "node-3",
                device,
                code,
                Optional.of(jobId),
                0L,
                outcome,
                new FaultVerdict.Evidence(1, List.of("node-4/accel0"), 12, List.of(), "explained"));
    }

    private static SchedulerFixture running() {
        return new SchedulerFixture()
                .withCluster("c1", "v6e")
                .submit("j1", "alice")
                .startRunning("j1");
    }

    private static TaskStatus last(SchedulerFixture f) {
        return f.statuses.get(f.statuses.size() - 1);
    }

    @Test
    void aSoftwareFaultOfARunningJobIsToldInItsMessageOncePerCode() {
        SchedulerFixture f = running();
        int before = f.statuses.size();

        f.record(f.scheduler.faultNoted(
                verdict("j1", "c1", "accel2", "0x17", FaultVerdict.Outcome.SOFTWARE_FAULT), f.now));
        f.record(f.scheduler.faultNoted(
                verdict("j1", "c1", "accel5", "0x17", FaultVerdict.Outcome.SOFTWARE_FAULT), f.now));

        assertThat(f.statuses).hasSize(before + 1);
        TaskStatus noted = last(f);
        assertThat(noted.status()).isEqualTo(Status.Running);
        assertThat(noted.message())
                .startsWith("Pod 运行中")
                .endsWith("; fault 0x17 on node-3/accel2: software fault (the same code on 12 device(s) of this job;"
                        + " no device isolated)");
        assertThat(f.ledger)
                .filteredOn(d -> d.kind() == Decision.Kind.FAULT_NOTED)
                .singleElement()
                .satisfies(d -> assertThat(d.verdict()).contains("c1/node-3/accel2/0x17 SOFTWARE_FAULT"));
    }

    @Test
    void anIsolationReplacesTheSoftwareNoteAndStaysInTheFinalMessage() {
        SchedulerFixture f = running();
        f.record(f.scheduler.faultNoted(
                verdict("j1", "c1", "accel2", "0x17", FaultVerdict.Outcome.SOFTWARE_FAULT), f.now));
        f.record(f.scheduler.faultNoted(verdict("j1", "c1", "accel1", "0x99", FaultVerdict.Outcome.ISOLATED), f.now));
        assertThat(last(f).message())
                .doesNotContain("software fault")
                .endsWith(
                        "; fault 0x99 on node-3/accel1: hardware fault, the device is isolated (clusterd-manual-info-cm)");

        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.JobFailed(f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "exit code 1"));

        TaskStatus failed = f.last("j1");
        assertThat(failed.status()).isEqualTo(Status.Failed);
        assertThat(failed.message())
                .contains("exit code 1")
                .endsWith("the device is isolated (clusterd-manual-info-cm)");
    }

    @Test
    void aVerdictThatArrivesJustAfterTheJobFailedAmendsItsFinalStatus() {
        SchedulerFixture f = running();
        ExecutorCommand.EnsureJob ensure = f.lastCommand(ExecutorCommand.EnsureJob.class, "j1");
        f.observe(new ExecutorEvent.JobFailed(f.meta(), "j1", "c1", "v6e", ensure.k8sJobName(), "exit code 1"));
        TaskStatus failed = f.last("j1");

        f.now = f.now.plus(Duration.ofMinutes(2));
        f.record(f.scheduler.faultNoted(verdict("j1", "c1", "accel1", "0x99", FaultVerdict.Outcome.ISOLATED), f.now));

        TaskStatus amended = f.last("j1");
        assertThat(amended.status()).isEqualTo(Status.Failed);
        assertThat(amended.version()).isGreaterThan(failed.version());
        assertThat(amended.finishedAt()).isEqualTo(failed.finishedAt());
        assertThat(amended.message()).startsWith(failed.message()).contains("hardware fault");
        assertThat(f.scheduler.job("j1").orElseThrow().message()).contains("hardware fault");
        assertThat(f.scheduler.jobs()).isEmpty();
    }

    @Test
    void verdictsNotWorthTellingOrAboutAnotherClusterOrLongEndedJobsChangeNothing() {
        SchedulerFixture f = running();
        int before = f.statuses.size();
        f.record(f.scheduler.faultNoted(verdict("j1", "c1", "accel2", "0x17", FaultVerdict.Outcome.COUNTED), f.now));
        f.record(f.scheduler.faultNoted(verdict("j1", "c9", "accel2", "0x17", FaultVerdict.Outcome.ISOLATED), f.now));
        f.record(f.scheduler.faultNoted(
                verdict("nobody", "c1", "accel2", "0x17", FaultVerdict.Outcome.ISOLATED), f.now));
        assertThat(f.statuses).hasSize(before);

        f.succeeded("j1");
        f.now = f.now.plus(FaultNotes.AFTER_END).plus(Duration.ofMinutes(1));
        int ended = f.statuses.size();
        f.record(f.scheduler.faultNoted(verdict("j1", "c1", "accel2", "0x17", FaultVerdict.Outcome.ISOLATED), f.now));
        assertThat(f.statuses).hasSize(ended);
    }
}
