package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.executor.ExecutorCommand;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.events.executor.ExecutorCommand.EnsureJobDeleted;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePool;
import io.falcon.events.executor.ExecutorCommand.EnsureNodePoolDeleted;
import io.falcon.events.executor.ExecutorEvent;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.executor.gke.NodePoolSpec;
import io.falcon.executor.isolation.IsolationActuator;
import io.falcon.executor.isolation.KnownClusters;
import io.falcon.executor.isolation.ManualInfoConfigMap;
import io.falcon.fleetsim.ApiCalls;
import io.falcon.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The executor's IAM custom role for edge projects ({@code k8s/iam/edge-executor-role.yaml}) grants exactly what the
 * executor calls: a representative scenario runs the executor's real GKE, Compute and fabric8 clients against
 * fleet-sim, which notes every call it serves per caller; each call is mapped to the permission Google documents for it
 * ({@link EdgeIamPermissions}). The role must hold every permission a call needs (plus the listed needed-but-not-yet-
 * exercised ones) and nothing else.
 *
 * <p>The scenario: node pools in each supply mode (a reservation named by zone, read with reservations.get, and one by
 * name only for the regional cluster, found with reservations.aggregatedList; flex-start; on-demand), a pool reused by
 * a second job, a multi-host Job with its headless Service and NetworkPolicy aborted while running, a single-host
 * Job run to its end, device isolation writing (create, then update) and watching the ConfigMap, the node and job/pod informers, pools
 * deleted, and a restarted executor rebuilding its view (node pools and Jobs listed) on the same fleet.
 */
class EdgeIamRoleIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Path ROLE = Path.of("..", "k8s", "iam", "edge-executor-role.yaml");
    private static final Path RBAC = Path.of("..", "k8s", "edge", "executor-rbac.yaml");
    /** The subject the RBAC manifest binds: the executor's Google service account, as GKE names it to RBAC. */
    private static final String EXECUTOR_USER = "falcon-controller@CENTRAL_PROJECT.iam.gserviceaccount.com";

    private static final String ZONE = "us-central1-a";
    private static final Map<String, String> SETTINGS = Map.of(
            "falcon.executor.image-pull-grace", "500ms", "falcon.executor.node-pool.inventory-interval", "400ms");

    @Test
    void theRoleGrantsExactlyThePermissionsOfTheCallsTheExecutorMakes() throws Exception {
        ApiCalls calls;
        try (SimHarness h = new SimHarness(SETTINGS)) {
            calls = h.sim.apiCalls();
            h.sim.reservations().define(SimHarness.PROJECT, ZONE, "res-z", "tpu7x-standard-4t", 4, 0);
            runScenario(h);
            try (SimHarness restarted = SimHarness.on(h.sim, SETTINGS)) {
                restarted.dispatcher.watchCluster(SimHarness.cluster());
                // the restarted process rebuilds its view from GKE's list of pools and the Job informer's list
                var pools = restarted.sink.await(ExecutorEvent.NodePoolInventory.class, "", WAIT);
                assertThat(pools.pools())
                        .extracting(ExecutorEvent.ObservedPool::name)
                        .contains("falcon-p-od");
                restarted.sink.await(ExecutorEvent.JobInventory.class, "", WAIT);
            }
        }

        List<ApiCalls.Call> executorCalls = calls.by(caller -> !ApiCalls.SIM_USER_AGENT.equals(caller));
        Map<String, Set<String>> needed = new TreeMap<>();
        Set<String> unmapped = new TreeSet<>();
        for (ApiCalls.Call call : executorCalls) {
            if (call.api() == ApiCalls.Api.KUBERNETES) {
                continue; // RBAC's, checked below
            }
            EdgeIamPermissions.permissionFor(call)
                    .ifPresentOrElse(
                            p -> needed.computeIfAbsent(p, k -> new TreeSet<>()).add(call.operation()),
                            () -> unmapped.add(call.toString()));
        }
        System.out.println("executor calls -> IAM permissions:");
        needed.forEach((permission, by) -> System.out.println("  " + permission + " <- " + by));

        assertThat(unmapped)
                .as("calls of the executor with no permission in EdgeIamPermissions (add them there and to the role)")
                .isEmpty();
        // the scenario reached every part it claims to exercise
        assertThat(executorCalls.stream().map(ApiCalls.Call::operation))
                .contains(
                        "COMPUTE GET projects/{project}/zones/{zone}/reservations/{resource}",
                        "COMPUTE GET projects/{project}/aggregated/reservations",
                        "KUBERNETES create services",
                        "KUBERNETES patch batch/jobs",
                        "KUBERNETES create networking.k8s.io/networkpolicies",
                        "KUBERNETES get networking.k8s.io/networkpolicies",
                        "KUBERNETES delete networking.k8s.io/networkpolicies",
                        "KUBERNETES get batch/jobs",
                        "KUBERNETES delete batch/jobs",
                        "KUBERNETES create configmaps",
                        "KUBERNETES update configmaps",
                        "KUBERNETES watch configmaps",
                        "KUBERNETES watch nodes");

        Set<String> role = rolePermissions();
        Set<String> wanted = new TreeSet<>(needed.keySet());
        wanted.addAll(EdgeIamPermissions.NEEDED_NOT_EXERCISED.keySet());
        assertThat(role).as("the role lacks permissions the executor needs").containsAll(wanted);
        assertThat(new TreeSet<>(role))
                .as("the role grants permissions no call needs (remove them, or list them in NEEDED_NOT_EXERCISED"
                        + " with the reason)")
                .isEqualTo(wanted);
        assertThat(role).doesNotContainAnyElementsOf(EdgeIamPermissions.NOT_NEEDED.keySet());
        assertThat(role)
                .as(
                        "Kubernetes objects are RBAC's, per namespace (k8s/edge/executor-rbac.yaml), never project-wide IAM")
                .noneMatch(EdgeIamPermissions::isKubernetesObjectPermission);

        // Kubernetes RBAC: every request allowed, in its namespace and for its object; every rule's verb used
        List<EdgeRbac.Grant> grants = EdgeRbac.grantsOf(RBAC, EXECUTOR_USER);
        List<ApiCalls.KubernetesRequest> requests =
                calls.kubernetesRequests(caller -> !ApiCalls.SIM_USER_AGENT.equals(caller));
        System.out.println("executor Kubernetes requests -> RBAC rules:");
        Set<String> denied = new TreeSet<>();
        Set<String> used = new TreeSet<>();
        for (ApiCalls.KubernetesRequest request : requests) {
            String what = request.verb() + " " + request.resource()
                    + (request.namespace().isEmpty() ? "" : " in " + request.namespace())
                    + (request.name().isEmpty() ? "" : " named " + request.name());
            EdgeRbac.allowing(grants, request)
                    .ifPresentOrElse(grant -> used.add(grant + " / " + request.verb()), () -> denied.add(what));
        }
        used.forEach(u -> System.out.println("  " + u));
        assertThat(denied)
                .as("Kubernetes requests of the executor that " + RBAC + " does not allow")
                .isEmpty();
        Set<String> granted = new TreeSet<>();
        for (EdgeRbac.Grant grant : grants) {
            grant.rule().getVerbs().forEach(verb -> granted.add(grant + " / " + verb));
        }
        assertThat(granted)
                .as("verbs of " + RBAC + " no request of the executor uses (remove them)")
                .isEqualTo(used);
        // scoped: nothing in kube-system, no Secrets, no pods/exec, and only nodes cluster-wide
        assertThat(grants).allSatisfy(grant -> {
            assertThat(grant.namespace()).isNotEqualTo("kube-system");
            assertThat(grant.rule().getResources()).doesNotContain("secrets", "pods/exec", "*");
            assertThat(grant.rule().getVerbs()).doesNotContain("*");
            if (grant.namespace().isEmpty()) {
                assertThat(grant.rule().getResources()).containsExactly("nodes");
            }
        });
    }

    /** iam.serviceAccounts.actAs is left out of the role because no pool names a node service account. */
    @Test
    void noNodePoolSetsANodeServiceAccountSoActAsIsNotNeeded() {
        for (SupplyMode mode : SupplyMode.values()) {
            for (String topology : List.of("2x2x1", "2x2x2")) {
                var pool = NodePoolSpec.render(ensurePool("sa", "falcon-sa", topology, mode));
                assertThat(pool.getConfig().getServiceAccount())
                        .as(mode + " " + topology
                                + ": a node service account needs iam.serviceAccounts.actAs on it (docs/deploy.md)")
                        .isEmpty();
            }
        }
    }

    private static void runScenario(SimHarness h) throws Exception {
        // one pool per supply mode; reservations by zone (reservations.get) and by name in the region (aggregatedList)
        h.dispatcher.handle(ensurePool("p-res", "falcon-p-res", "2x2x2", SupplyMode.RESERVATION, "res-a"));
        h.dispatcher.handle(ensurePool(
                "p-zonal",
                "falcon-p-zonal",
                "2x2x1",
                SupplyMode.RESERVATION,
                "projects/" + SimHarness.PROJECT + "/zones/" + ZONE + "/reservations/res-z"));
        h.dispatcher.handle(ensurePool("p-flex", "falcon-p-flex", "2x2x1", SupplyMode.FLEX_START));
        h.dispatcher.handle(ensurePool("p-od", "falcon-p-od", "2x2x1", SupplyMode.ON_DEMAND));
        for (String job : List.of("p-res", "p-zonal", "p-flex", "p-od")) {
            h.sink.await(ExecutorEvent.NodePoolReady.class, job, WAIT);
        }
        // the next job of the queue reuses the on-demand pool
        h.dispatcher.handle(ensurePool("p-reuse", "falcon-p-od", "2x2x1", SupplyMode.ON_DEMAND));
        h.sink.await(ExecutorEvent.NodePoolReady.class, "p-reuse", WAIT);

        // a multi-host Job (with its headless Service), aborted while it runs
        ExecutorCommand multi = ensureJob("j-multi", "falcon-p-res", "2x2x2", "30");
        h.dispatcher.handle(multi);
        var submitted = h.sink.await(ExecutorEvent.JobSubmitted.class, "j-multi", WAIT);
        // redelivered (at-least-once): the Job exists, so it is read back (uid) and its Service ensured
        h.dispatcher.handle(multi);
        h.sink.await(ExecutorEvent.JobSubmitted.class, "j-multi", e -> e != submitted, WAIT);
        h.sink.await(ExecutorEvent.JobRunning.class, "j-multi", WAIT);
        h.dispatcher.handle(new EnsureJobDeleted(
                Meta.of("test", Instant.now()), "j-multi", SimHarness.cluster(), "falcon-j-multi"));
        h.sink.await(ExecutorEvent.JobDeleted.class, "j-multi", WAIT);
        // a single-host Job run to its end on the reused pool
        h.dispatcher.handle(ensureJob("p-reuse", "falcon-p-od", "2x2x1", "0.3"));
        h.sink.await(ExecutorEvent.JobSucceeded.class, "p-reuse", WAIT);

        for (String job : List.of("p-res", "p-zonal", "p-flex")) {
            h.dispatcher.handle(new EnsureNodePoolDeleted(
                    Meta.of("test", Instant.now()), job, SimHarness.cluster(), "falcon-" + job));
            h.sink.await(ExecutorEvent.NodePoolDeleted.class, job, WAIT);
        }
        Await.until(
                "no pool operation in flight",
                WAIT,
                () -> h.nodePools.inFlight() == 0,
                () -> h.nodePools.inFlight() + " in flight");

        // Last: closing the isolation informer's watch can block fabric8's mock API server for up to a minute
        // (kubernetes-server-mock's WatchEventsListener.onClosed waits for its executor on the vert.x event loop), and
        // every later request to this edge cluster with it; the pool deletions above once timed out behind it.
        isolateTwice(h);
    }

    /** Two isolations of one node: the ConfigMap is created, then updated, and watched from the first one on. */
    private static void isolateTwice(SimHarness h) {
        String topic = Topics.ISOLATION.name();
        TopicPartition partition = new TopicPartition(topic, 0);
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, new Node[0], new Node[0])));
        consumer.updateBeginningOffsets(Map.of(partition, 0L));
        KnownClusters clusters = new KnownClusters(h.edges);
        clusters.accept(SimHarness.cluster());
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        try (IsolationActuator actuator =
                new IsolationActuator(consumer, producer, clusters, Clock.systemUTC(), Duration.ofMinutes(5)).start()) {
            isolate(consumer, 0, "chip-0");
            awaitIsolated(h, "chip-0");
            isolate(consumer, 1, "chip-0", "chip-1");
            awaitIsolated(h, "chip-1");
            Await.until(
                    "the ConfigMap watched by the executor",
                    WAIT,
                    () -> h.sim.apiCalls().distinct().stream()
                            .anyMatch(c -> c.operation().equals("KUBERNETES watch configmaps")
                                    && !ApiCalls.SIM_USER_AGENT.equals(c.caller())),
                    () -> h.sim.apiCalls().distinct().toString());
        }
    }

    private static void isolate(MockConsumer<byte[], byte[]> consumer, long offset, String... devices) {
        Map<String, List<NodeIsolation.DeviceIsolation>> detail = new TreeMap<>();
        for (String d : devices) {
            detail.put(d, List.of(new NodeIsolation.DeviceIsolation("8C084E00", "ManuallySeparateNPU", 1L)));
        }
        byte[] key =
                NodeIsolation.key(SimHarness.cluster().clusterId(), "node-a").getBytes(StandardCharsets.UTF_8);
        byte[] value = Topics.ISOLATION.valueSerde().toBytes(new NodeIsolation(List.of(devices), detail));
        consumer.schedulePollTask(
                () -> consumer.addRecord(new ConsumerRecord<>(Topics.ISOLATION.name(), 0, offset, key, value)));
    }

    private static void awaitIsolated(SimHarness h, String device) {
        Await.until(
                device + " in " + ManualInfoConfigMap.NAME,
                WAIT,
                () -> {
                    ConfigMap cm = h.sim.kubernetesClient(SimHarness.PROJECT, SimHarness.LOCATION, SimHarness.CLUSTER)
                            .configMaps()
                            .inNamespace(ManualInfoConfigMap.NAMESPACE)
                            .withName(ManualInfoConfigMap.NAME)
                            .get();
                    return cm != null
                            && cm.getData() != null
                            && cm.getData().toString().contains(device);
                },
                () -> "not there yet");
    }

    private static EnsureNodePool ensurePool(String jobId, String pool, String topology, SupplyMode mode) {
        return ensurePool(jobId, pool, topology, mode, null);
    }

    private static EnsureNodePool ensurePool(
            String jobId, String pool, String topology, SupplyMode mode, String reservation) {
        if (mode == SupplyMode.RESERVATION && reservation == null) {
            reservation = "res-a";
        }
        return new EnsureNodePool(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                pool,
                "v7x",
                topology,
                mode,
                Optional.ofNullable(reservation));
    }

    private static ExecutorCommand ensureJob(String jobId, String pool, String topology, String seconds) {
        return new EnsureJob(
                Meta.of("test", Instant.now()),
                jobId,
                SimHarness.cluster(),
                pool,
                "falcon-" + jobId,
                "v7x",
                topology,
                new JobSpec(
                        "img:1",
                        List.of("python", "train.py"),
                        List.of(),
                        Map.of("FALCON_SIM_DURATION_SECONDS", seconds)));
    }

    /** The includedPermissions of the role file (a plain YAML list, one "  - permission" a line). */
    static Set<String> rolePermissions() throws IOException {
        Set<String> permissions = new TreeSet<>();
        boolean inList = false;
        Pattern item = Pattern.compile("^\\s+-\\s+([a-zA-Z0-9.]+)\\s*(#.*)?$");
        for (String line : Files.readAllLines(ROLE, StandardCharsets.UTF_8)) {
            if (line.startsWith("includedPermissions:")) {
                inList = true;
                continue;
            }
            if (inList && !line.isBlank() && !line.startsWith(" ") && !line.startsWith("#")) {
                inList = false;
            }
            Matcher m = item.matcher(line);
            if (inList && m.matches()) {
                permissions.add(m.group(1));
            }
        }
        assertThat(permissions).as("permissions read from " + ROLE).isNotEmpty();
        return permissions;
    }
}
