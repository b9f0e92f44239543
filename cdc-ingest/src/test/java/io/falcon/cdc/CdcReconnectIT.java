package io.falcon.cdc;

import static io.falcon.cdc.CdcFixture.insertJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ChangeOp;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The database goes away and comes back while the engine runs: it reconnects and resumes by itself. */
class CdcReconnectIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void resumesAfterMariaDbStopAndStart() throws Exception {
        try (CdcFixture f = new CdcFixture()) {
            CdcIngest ingest = f.startIngest();
            f.sql(insertJob("before-1", "{}"));
            f.jobs()
                    .awaitValues(
                            "before-1",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.jobId().equals("before-1")));

            try {
                f.embeddedDb().stop();
                Thread.sleep(2000);
            } finally {
                f.embeddedDb().start();
            }
            f.sql(insertJob("after-1", "{}"), "UPDATE jobs SET status = 'Aborting' WHERE id = 'before-1'");

            var all = f.jobs()
                    .awaitValues(
                            "after-1 and the update of before-1 after the restart",
                            WAIT,
                            v -> v.stream().anyMatch(c -> c.jobId().equals("after-1") && c.op() == ChangeOp.CREATE)
                                    && v.stream()
                                            .anyMatch(c -> c.jobId().equals("before-1") && c.op() == ChangeOp.UPDATE));
            assertThat(all.stream()
                            .filter(c -> c.jobId().equals("before-1") && c.op() == ChangeOp.UPDATE)
                            .findFirst()
                            .orElseThrow()
                            .after()
                            .orElseThrow()
                            .status())
                    .isEqualTo("Aborting");
            assertThat(ingest.state()).isIn(CdcIngest.State.RUNNING, CdcIngest.State.RESTARTING);
            System.out.println(
                    "reconnect IT: engine starts " + ingest.engineStarts() + ", last error " + ingest.lastError());
        }
    }
}
