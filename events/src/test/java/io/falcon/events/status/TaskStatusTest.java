package io.falcon.events.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Meta;
import io.falcon.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TaskStatusTest {
    private static TaskStatus failed(String message) {
        return new TaskStatus(
                Meta.of("test", Instant.EPOCH),
                "j1",
                3,
                Status.Failed,
                Optional.of(Reason.JobSubmitFailed),
                message,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    @Test
    void aMessageLongerThanTheColumnHoldsIsCutSayingSo() {
        // a Kubernetes 422 echoing a crafted spec's 60,000-character argument, in 4-byte characters
        String echoed = "Job.batch \"falcon-x\" is invalid: " + "😀".repeat(30_000);
        TaskStatus status = failed(echoed);
        assertThat(status.message().length()).isLessThanOrEqualTo(TaskStatus.MAX_MESSAGE_CHARS);
        assertThat(status.message())
                .startsWith("Job.batch \"falcon-x\" is invalid: ")
                .contains("more characters cut");
        // never half a character, so the UTF-8 the status-sink writes is valid and fits a TEXT column
        assertThat(status.message().codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF))
                .isTrue();
        assertThat(status.message().getBytes(StandardCharsets.UTF_8).length).isLessThan(65_535);
        // and it is the same after a trip through its topic
        var serde = Topics.TASK_STATUS.valueSerde();
        assertThat(serde.deserializer().deserialize("t", serde.serializer().serialize("t", status)))
                .isEqualTo(status);
    }

    @Test
    void anOrdinaryMessageIsKeptAsItIs() {
        assertThat(failed("Pod terminated: OOMKilled (exit code 137)").message())
                .isEqualTo("Pod terminated: OOMKilled (exit code 137)");
    }
}
