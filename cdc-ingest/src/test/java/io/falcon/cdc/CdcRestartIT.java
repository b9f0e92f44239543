package io.falcon.cdc;

import static io.falcon.cdc.CdcFixture.insertCluster;
import static io.falcon.cdc.CdcFixture.insertJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.cdc.ChangeOp;
import io.falcon.events.cdc.JobChange;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Closing the engine mid-stream and starting it again with the same config: every change arrives, none lost. */
class CdcRestartIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int JOBS = 240;
    private static final long WRITER_JOIN_MS = 120_000;

    private static boolean updated(int i) {
        return i % 3 == 0;
    }

    @Test
    void everyChangeArrivesAtLeastOnceAcrossACloseAndRestart() throws Exception {
        try (CdcFixture f = new CdcFixture()) {
            f.sql(insertCluster("c-1", "active"));
            CdcIngest first = f.startIngest();
            f.clusters().awaitValues("snapshot of c-1", WAIT, v -> !v.isEmpty());

            AtomicInteger written = new AtomicInteger();
            AtomicReference<Throwable> writerError = new AtomicReference<>();
            Thread writer = new Thread(
                    () -> {
                        try (Connection c = f.connect();
                                Statement s = c.createStatement()) {
                            for (int i = 0; i < JOBS; i++) {
                                s.execute(insertJob("j-" + i, "{\"i\":" + i + "}"));
                                if (updated(i)) {
                                    s.execute("UPDATE jobs SET status = 'Running', cluster_id = 'c-1' WHERE id = 'j-"
                                            + i + "'");
                                }
                                written.incrementAndGet();
                                Thread.sleep(8);
                            }
                        } catch (Throwable t) {
                            writerError.set(t);
                        }
                    },
                    "cdc-restart-it-writer");
            writer.start();

            f.jobs().awaitValues("the first 40 changes", WAIT, v -> v.size() >= 40);
            first.close();
            int writtenAtClose = written.get();
            assertThat(writtenAtClose).as("closed mid-stream").isLessThan(JOBS);
            Thread.sleep(300); // changes pile up while nothing reads the binlog

            CdcIngest second = f.startIngest();
            writer.join(WRITER_JOIN_MS);
            assertThat(writerError.get()).isNull();
            assertThat(written.get()).isEqualTo(JOBS);

            List<JobChange> all = f.jobs().awaitValues("every insert and update", WAIT, v -> {
                Set<String> created = ids(v, ChangeOp.CREATE);
                Set<String> updates = ids(v, ChangeOp.UPDATE);
                return IntStream.range(0, JOBS)
                        .allMatch(i -> created.contains("j-" + i) && (!updated(i) || updates.contains("j-" + i)));
            });

            // resumed from the stored binlog position: no second snapshot, jobs came from the binlog only
            assertThat(all).noneMatch(c -> c.op() == ChangeOp.SNAPSHOT);
            assertThat(f.clusters().readFor(Duration.ofMillis(500))).hasSize(1);
            // a change delivered twice carries the same event id both times
            Map<String, Set<String>> idsPerChange = all.stream()
                    .collect(Collectors.groupingBy(
                            c -> c.jobId() + "|" + c.op() + "|" + c.source().binlogFile() + ":"
                                    + c.source().binlogPosition() + ":"
                                    + c.source().rowInEvent(),
                            Collectors.mapping(c -> c.meta().eventId(), Collectors.toSet())));
            assertThat(idsPerChange.values()).allSatisfy(ids -> assertThat(ids).hasSize(1));
            // every update arrives with its before image
            assertThat(all.stream().filter(c -> c.op() == ChangeOp.UPDATE))
                    .allSatisfy(
                            c -> assertThat(c.before().orElseThrow().status()).isEqualTo("Pending"));
            assertThat(second.engineStarts()).isEqualTo(1);
            System.out.printf(
                    "restart IT: %d jobs changes read for %d written (%d duplicates), closed after %d%n",
                    all.size(), JOBS + JOBS / 3, all.size() - (JOBS + JOBS / 3), writtenAtClose);
        }
    }

    private static Set<String> ids(List<JobChange> changes, ChangeOp op) {
        return changes.stream().filter(c -> c.op() == op).map(JobChange::jobId).collect(Collectors.toSet());
    }
}
