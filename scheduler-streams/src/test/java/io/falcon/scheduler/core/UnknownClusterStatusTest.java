package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.ClusterStatus;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A clusters row whose status this version does not know is treated like maintenance: not schedulable. */
class UnknownClusterStatusTest {
    private final SchedulerFixture f = new SchedulerFixture().withCluster("c1", "v6e");

    private void setStatus(String cluster, String wire) {
        f.record(f.scheduler.clusterUpserted(SchedulerFixture.cluster(cluster, "v6e", wire, Optional.empty()), f.now));
    }

    @Test
    void noJobStartsThereItsWaitingJobsMoveAndItsRunningJobsKeepRunningWithANote() {
        setStatus("c2", "draining"); // registered with a status this version does not know: takes no job
        f.submit("j1", "a").startRunning("j1").submit("j2", "b").submit("j3", "c");
        assertThat(f.last("j3").clusterId()).contains("c1");
        setStatus("c1", "draining");
        assertThat(f.scheduler.cluster("c1").orElseThrow().status()).isEqualTo(ClusterStatus.UNKNOWN);

        assertThat(f.last("j1").status()).isEqualTo(Status.Running);
        assertThat(f.last("j1").message())
                .endsWith(
                        "; cluster edge-c1 is in a status Falcon does not know: this job keeps running, no new jobs start there");
        assertThat(f.last("j3").reason()).contains(Reason.Waiting);
        assertThat(f.last("j3").clusterId()).isEmpty();

        f.submit("j4", "d");
        assertThat(f.last("j4").clusterId()).isEmpty();
        assertThat(f.commandsOf(ExecutorCommand.EnsureNodePool.class))
                .extracting(ExecutorCommand::jobId)
                .containsExactly("j1", "j2");

        setStatus("c2", "active");
        assertThat(f.last("j3").clusterId()).contains("c2");
        assertThat(f.last("j3").reason()).contains(Reason.Provisioning);
    }
}
