package io.falcon.cdc;

import static io.falcon.cdc.CdcFixture.insertJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.config.CdcIngestKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MySQL connector path (flavor=mysql), run against the embedded MariaDB since no MySQL server exists here. */
class MySqlFlavorIT {
    @Test
    void mysqlFlavorSnapshotsAndStreams() {
        try (CdcFixture f = new CdcFixture(Map.of(CdcIngestKeys.FLAVOR.key(), "mysql"))) {
            f.sql(insertJob("m-1", "{}"));
            f.startIngest();
            f.jobs()
                    .awaitValues(
                            "m-1 snapshot",
                            Duration.ofSeconds(60),
                            v -> v.stream().anyMatch(c -> c.jobId().equals("m-1") && c.op() == ChangeOp.SNAPSHOT));
            f.sql(insertJob("m-2", "{}"), "UPDATE jobs SET status = 'Aborting' WHERE id = 'm-1'");
            var all = f.jobs()
                    .awaitValues(
                            "m-2 insert and m-1 update from the binlog",
                            Duration.ofSeconds(60),
                            v -> v.stream().anyMatch(c -> c.jobId().equals("m-2") && c.op() == ChangeOp.CREATE)
                                    && v.stream().anyMatch(c -> c.jobId().equals("m-1") && c.op() == ChangeOp.UPDATE));
            assertThat(all)
                    .allSatisfy(c -> assertThat(c.after().orElseThrow().createdAt())
                            .contains(Instant.parse("2025-03-01T10:15:30.123Z")));
        }
    }
}
