package io.falcon.simulation;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.status.Status;
import io.falcon.events.status.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The execution-deadline invariant allows the time the executor was down while the job ran: an abort or a timeout
 * ends in a terminal status only once the Kubernetes Job's deletion is confirmed, which a dead executor cannot do.
 */
class DeadlineCheckTest {
    private static final Instant DISPATCHED = Instant.parse("2026-12-02T00:13:40Z");
    private static final Duration TIMEOUT = Duration.ofMinutes(75);
    private static final Duration SLACK = Duration.ofMinutes(20);

    /** job-08 of seed 1107191: dispatched, then Aborted 129 minutes later. */
    private static List<TaskStatus> ranFor(Duration ran) {
        return List.of(taskStatus("job-08")
                .status(Status.Aborted)
                .dispatchedAt(DISPATCHED)
                .finishedAt(DISPATCHED.plus(ran))
                .build());
    }

    private static List<String> violations(List<TaskStatus> statuses, Duration executorDown) {
        List<String> violations = new ArrayList<>();
        new Checks(violations, Duration.ofMinutes(1))
                .checkDeadlines(statuses, id -> TIMEOUT, SLACK, (from, to) -> executorDown);
        return violations;
    }

    @Test
    void aJobThatRanPastItsDeadlineWhileTheExecutorWasUpIsAViolation() {
        assertThat(violations(ranFor(Duration.ofMinutes(129)), Duration.ofMinutes(30)))
                .singleElement()
                .asString()
                .contains("job job-08 ran 129m, past its 75m execution deadline")
                .contains("the executor was down 30m meanwhile");
    }

    @Test
    void theTimeTheExecutorWasDownMeanwhileIsAllowed() {
        assertThat(violations(ranFor(Duration.ofMinutes(129)), Duration.ofMinutes(110)))
                .isEmpty();
        assertThat(violations(ranFor(Duration.ofMinutes(90)), Duration.ZERO)).isEmpty();
    }
}
