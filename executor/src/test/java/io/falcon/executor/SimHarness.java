package io.falcon.executor;

import com.google.cloud.compute.v1.ReservationsClient;
import com.google.cloud.container.v1.ClusterManagerClient;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.executor.core.JobDriver;
import io.falcon.executor.gke.GkeClusterApi;
import io.falcon.executor.gke.GoogleClients;
import io.falcon.executor.gke.NodePoolManager;
import io.falcon.executor.gke.ReservationLookup;
import io.falcon.executor.k8s.EdgeClusterClients;
import io.falcon.executor.k8s.JobStatusReconciler;
import io.falcon.executor.k8s.KubernetesEdgeApi;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.fleetsim.ReservationConfig;
import io.falcon.fleetsim.gke.NodePoolKnobs;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The executor's components wired to a fleet-sim with one v7x cluster, reporting into a RecordingSink. */
public final class SimHarness implements AutoCloseable {
    public static final String PROJECT = "poc-tpu-partner";
    public static final String LOCATION = "us-central1";
    public static final String CLUSTER = "tpuv7x-64-node";

    public final FleetSim sim;
    public final ExecutorConfig config;
    public final ClusterManagerClient gke;
    public final ReservationsClient reservationsClient;
    public final com.google.cloud.compute.v1.ResourcePoliciesClient resourcePoliciesClient;
    public final RecordingSink sink = new RecordingSink();
    public final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    public final EdgeClusterClients edges;
    public final NodePoolManager nodePools;
    public final JobStatusReconciler reconciler;
    public final JobDriver jobs;
    public final GkeClusterApi gkeApi;
    public final KubernetesEdgeApi edgeApi;
    public final CommandDispatcher dispatcher;

    public static final String OTHER_CLUSTER = "tpuv7x-other";

    public SimHarness(Map<String, String> overrides) {
        this(overrides, false);
    }

    /** @param otherCluster also simulate a second cluster, {@link #OTHER_CLUSTER}, in the same project */
    public SimHarness(Map<String, String> overrides, boolean otherCluster) {
        this(startSim(otherCluster), true, overrides);
    }

    /**
     * A second set of executor components on a fleet-sim that is already running (a restarted executor: it remembers
     * nothing and finds everything in GKE and Kubernetes); closing it leaves the sim running.
     */
    public static SimHarness on(FleetSim sim, Map<String, String> overrides) {
        return new SimHarness(sim, false, overrides);
    }

    private final boolean ownsSim;

    private static FleetSim startSim(boolean otherCluster) {
        EdgeClusterConfig main = EdgeClusterConfig.of(PROJECT, LOCATION, CLUSTER, "tpu7x")
                .withReservation(ReservationConfig.of("res-a", "tpu7x-standard-4t", 8, 0));
        FleetSimConfig fleet = otherCluster
                ? FleetSimConfig.of(main, EdgeClusterConfig.of(PROJECT, LOCATION, OTHER_CLUSTER, "tpu7x"))
                : FleetSimConfig.of(main);
        return FleetSim.start(fleet.withPoolDelays(Duration.ofMillis(300), Duration.ofMillis(200)));
    }

    private SimHarness(FleetSim sim, boolean ownsSim, Map<String, String> overrides) {
        this.sim = sim;
        this.ownsSim = ownsSim;
        var settings = new java.util.HashMap<>(
                ExecutorConfig.simulatorDefaults("unused:9092", sim.gkeEndpoint(), sim.computeEndpoint()));
        settings.put(ExecutorKeys.POLL_INTERVAL.key(), "100ms");
        settings.putAll(overrides);
        config = ExecutorConfig.from(settings);
        gke = GoogleClients.clusterManager(config);
        Clock clock = Clock.systemUTC();
        Events events = new Events("executor-test", clock);
        edges = new EdgeClusterClients(gke, config.credentials(), config.namespace());
        reservationsClient = GoogleClients.reservations(config);
        resourcePoliciesClient = GoogleClients.resourcePolicies(config);
        reconciler = new JobStatusReconciler(
                edges,
                config.namespace(),
                sink,
                events,
                clock,
                config.imagePullGrace(),
                config.informerResync(),
                scheduler,
                config.pollInterval(),
                config.inventoryInterval(),
                config.ownership());
        io.falcon.executor.gke.WorkloadPolicies workloadPolicies =
                new io.falcon.executor.gke.WorkloadPolicies(resourcePoliciesClient);
        gkeApi = new GkeClusterApi(
                gke,
                new ReservationLookup(reservationsClient),
                workloadPolicies,
                config.scaleDown(),
                config.ownership());
        edgeApi = new KubernetesEdgeApi(edges, config.jobRenderer(), config.namespace(), reconciler::watch);
        nodePools = new NodePoolManager(
                gkeApi, edgeApi, sink, events, scheduler, clock, NodePoolManager.Settings.of(config));
        nodePools.start();
        reconciler.onNodeReady(nodePools::nudge);
        workloadPolicies.onInsertDone(nodePools::nudge);
        jobs = new JobDriver(edgeApi, sink, events, config.ownership());
        dispatcher = new CommandDispatcher(nodePools, jobs, reconciler);
    }

    public static ClusterTarget cluster() {
        return new ClusterTarget("cluster-1", CLUSTER, PROJECT, LOCATION, "v7x", "bucket-a");
    }

    public NodePoolKnobs knobs() {
        return sim.nodePoolKnobs(PROJECT, LOCATION, CLUSTER);
    }

    /**
     * The workload policy of a TPU7x multi-host topology exists already (created earlier, by this or another
     * executor), for tests that call the GKE API directly.
     */
    public void existingWorkloadPolicy(String topology) {
        var policies = sim.resourcePolicies();
        policies.insertDelay(Duration.ZERO);
        try {
            policies.create(PROJECT, "us-central1", "falcon-v7x-ht-" + topology, "HIGH_THROUGHPUT", topology);
        } finally {
            policies.insertDelay(io.falcon.fleetsim.compute.ResourcePolicyStore.DEFAULT_INSERT_DELAY);
        }
    }

    @Override
    public void close() {
        reconciler.close();
        nodePools.close();
        scheduler.shutdownNow();
        edges.close();
        gke.close();
        reservationsClient.close();
        resourcePoliciesClient.close();
        if (ownsSim) {
            sim.close();
        }
    }
}
