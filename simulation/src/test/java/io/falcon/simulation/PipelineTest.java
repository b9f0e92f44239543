package io.falcon.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The throughput model of {@code bench/goodput}: each figure is bounded by the resource that should bound it, a
 * single job takes at least its path's latencies, and a setup gives one result.
 */
class PipelineTest {
    private static final int CLUSTERS = 8;

    @Test
    void aSetupGivesOneResult() {
        Pipeline.Result a = Pipeline.run(Pipeline.production(), 300, CLUSTERS);
        Pipeline.Result b = Pipeline.run(Pipeline.production(), 300, CLUSTERS);

        assertThat(a.lastRunning()).isEqualTo(b.lastRunning());
        assertThat(a.p50()).isEqualTo(b.p50());
    }

    @Test
    void aSingleJobTakesAtLeastItsPathsLatencies() {
        Pipeline.Setup setup = Pipeline.production();
        Pipeline.Api api = setup.api();
        // its pool's first step, its nodes, then the Job's requests and its pods (the second step overlaps the nodes)
        Duration path = api.gkeCall()
                .multipliedBy(api.gkeCallsFirstStep())
                .plus(api.gkeCall().multipliedBy(api.gkeCallsPerPool() - api.gkeCallsFirstStep()))
                .plus(setup.fleet().nodesUp())
                .plus(api.k8sCall().multipliedBy(api.k8sCallsPerJob()))
                .plus(setup.fleet().podStart());

        Pipeline.Result one = Pipeline.run(setup, 1, CLUSTERS);

        assertThat(one.lastRunning()).isGreaterThanOrEqualTo(path);
        assertThat(one.lastRowRunning()).isGreaterThan(one.lastRunning());
        assertThat(one.lastPosted()).isLessThan(one.lastRunning());
    }

    @Test
    void noPartRunsFasterThanItsCoresAllow() {
        Pipeline.Setup setup = Pipeline.production();
        Pipeline.Result result = Pipeline.run(setup, 1000, CLUSTERS);

        for (Map.Entry<Pipeline.Part, Double> cores : setup.cpu().cores().entrySet()) {
            double perJob = setup.cpu().of(cores.getKey());
            double ceiling = cores.getValue() * 1000 / perJob;
            assertThat(result.jobsPerSecond()).as("%s", cores.getKey()).isLessThanOrEqualTo(ceiling);
        }
        assertThat(result.busyCores().values())
                .allSatisfy(busy -> assertThat(busy).isBetween(0.0, 1.0));
    }

    @Test
    void theExecutorAloneIsBoundedByItsStepThreadsWaitingOnGke() {
        Pipeline.Setup setup = Pipeline.executorAlone();
        Pipeline.Api api = setup.api();
        double ceiling =
                setup.concurrency().stepThreads() / (api.gkeCall().toMillis() / 1000.0 * api.gkeCallsPerPool());

        Pipeline.Result result = Pipeline.run(setup, 2000, CLUSTERS);

        assertThat(result.postsPerSecond()).isLessThanOrEqualTo(ceiling);
        // and it is that bound, not the CPU, that holds it: its cores are nearly idle
        assertThat(result.busyCores().get("executor")).isLessThan(0.2);
    }

    @Test
    void moreOfTheBindingResourceNeverMakesItSlower() {
        Pipeline.Setup production = Pipeline.production();

        double oneCore =
                Pipeline.run(production.withExecutorCores(1), 1000, CLUSTERS).jobsPerSecond();
        double twoCores =
                Pipeline.run(production.withExecutorCores(2), 1000, CLUSTERS).jobsPerSecond();
        double serial =
                Pipeline.run(production.withExecutor(1, 1), 100, CLUSTERS).jobsPerSecond();

        assertThat(twoCores).isGreaterThan(oneCore);
        assertThat(serial).isLessThan(oneCore / 10);
    }

    @Test
    void theQueuesAcquirersBoundWhatIsInFlight() {
        Pipeline.Setup one = Pipeline.production().withAcquirersPerQueue(1);
        // 24 queues, one acquirer each: 48 jobs take two rounds, each at least one job's whole path
        Duration single = Pipeline.run(one, 1, CLUSTERS).lastRunning();

        Pipeline.Result twoRounds = Pipeline.run(one, 48, CLUSTERS);

        assertThat(twoRounds.lastRunning()).isGreaterThanOrEqualTo(single.multipliedBy(2));
    }
}
