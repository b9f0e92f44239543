package io.falcon.executor.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.fleetsim.EdgeClusterConfig;
import io.falcon.fleetsim.FleetSim;
import io.falcon.fleetsim.FleetSimConfig;
import io.falcon.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The ConfigMap write / watch / release loop against fleet-sim's Kubernetes API (fabric8 mock, CRUD mode). */
class IsolationActuatorTest {
    private static final String CLUSTER = "cluster-1";
    private static FleetSim sim;
    private static KubernetesClient client;

    private MockProducer<byte[], byte[]> producer;
    private IsolationActuator actuator;

    @BeforeAll
    static void startSim() {
        sim = FleetSim.start(FleetSimConfig.of(EdgeClusterConfig.of("proj", "us-central1", "edge-1", "tpu7x")));
        client = new KubernetesClientBuilder()
                .withHttpClientFactory(new JdkHttpClientFactory())
                .withConfig(new ConfigBuilder()
                        .withMasterUrl(sim.kubernetesUrl("proj", "us-central1", "edge-1"))
                        .build())
                .build();
    }

    @AfterAll
    static void stopSim() {
        client.close();
        sim.close();
    }

    @BeforeEach
    void start() {
        client.configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .withName(ManualInfoConfigMap.NAME)
                .delete();
        producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        actuator = new IsolationActuator(
                new MockConsumer<>("earliest"),
                producer,
                id -> CLUSTER.equals(id) ? Optional.of(client) : Optional.empty(),
                Clock.systemUTC(),
                Duration.ofMinutes(5));
    }

    @AfterEach
    void stop() {
        actuator.close();
    }

    private static NodeIsolation isolated(String... devices) {
        Map<String, List<NodeIsolation.DeviceIsolation>> detail = new HashMap<>();
        for (String d : devices) {
            detail.put(
                    d, List.of(new NodeIsolation.DeviceIsolation("8C084E00", "ManuallySeparateNPU", 1770811685650L)));
        }
        return new NodeIsolation(List.of(devices), detail);
    }

    private void deliver(String node, NodeIsolation state) {
        actuator.handle(new ConsumerRecord<>(
                Topics.ISOLATION.name(),
                0,
                0,
                NodeIsolation.key(CLUSTER, node).getBytes(StandardCharsets.UTF_8),
                Topics.ISOLATION.valueSerde().toBytes(state)));
    }

    private static ConfigMap configMap() {
        return client.configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .withName(ManualInfoConfigMap.NAME)
                .get();
    }

    private static void operatorEdits(java.util.function.Consumer<Map<String, String>> edit) {
        ConfigMap cm = configMap();
        Map<String, String> data = new HashMap<>(cm.getData());
        edit.accept(data);
        client.configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .resource(new ConfigMapBuilder(cm).withData(data).build())
                .update();
    }

    private List<IsolationCommand> sent() {
        return producer.history().stream()
                .map(r -> Topics.ISOLATION_COMMANDS.valueSerde().fromBytes(r.value()))
                .toList();
    }

    /** The releases sent so far (the listings of the ConfigMap sent with them left out). */
    private List<IsolationCommand.Release> releases() {
        return sent().stream()
                .filter(c -> c instanceof IsolationCommand.Release)
                .map(c -> (IsolationCommand.Release) c)
                .toList();
    }

    private List<IsolationCommand.Release> releasesWithin(Duration timeout) {
        Await.until(
                "a release from the ConfigMap's watch",
                timeout,
                () -> {
                    actuator.runChecks();
                    return !releases().isEmpty();
                },
                () -> "nothing sent; the ConfigMap holds " + configMap().getData());
        return releases();
    }

    @Test
    void writesTheNodeStateInTheRfcJsonShape() {
        deliver("localhost.localdomain", isolated("Ascend910-0"));

        ConfigMap cm = configMap();
        assertThat(cm.getMetadata().getNamespace()).isEqualTo("cluster-system");
        assertThat(cm.getData())
                .containsEntry(
                        "localhost.localdomain",
                        "{\"Total\":[\"Ascend910-0\"],\"Detail\":"
                                + "{\"Ascend910-0\":[{\"FaultCode\":\"8C084E00\",\"FaultLevel\":\"ManuallySeparateNPU\","
                                + "\"LastSeparateTime\":1770811685650}]}}");
        assertThat(ManualInfoConfigMap.written(cm))
                .containsEntry("localhost.localdomain", java.util.Set.of("Ascend910-0"));
    }

    @Test
    void aDeviceAnOperatorRemovedIsReleasedOnceAndNotWrittenBack() throws Exception {
        deliver("n1", isolated("d0", "d1"));
        operatorEdits(data -> data.put("n1", ManualInfoConfigMap.json(isolated("d1"))));

        List<IsolationCommand.Release> releases = releasesWithin(Duration.ofSeconds(10));
        assertThat(releases).singleElement().satisfies(r -> {
            assertThat(r.clusterId()).isEqualTo(CLUSTER);
            assertThat(r.nodeName()).isEqualTo("n1");
            assertThat(r.deviceName()).isEqualTo("d0");
            assertThat(r.reason()).contains("clusterd-manual-info-cm");
        });
        assertThat(producer.history())
                .allSatisfy(r -> assertThat(r.key()).isEqualTo(CLUSTER.getBytes(StandardCharsets.UTF_8)));

        // A stale state (fault-streams has not applied the release yet) must not put d0 back.
        deliver("n1", isolated("d0", "d1"));
        assertThat(ManualInfoConfigMap.listed(configMap(), "n1")).contains(java.util.Set.of("d1"));
        // fault-streams' answer: the node without d0; then the last device released leaves no key.
        deliver("n1", isolated("d1"));
        deliver("n1", null);
        assertThat(configMap().getData()).doesNotContainKey("n1");
        actuator.runChecks();
        assertThat(releases()).hasSize(1);
    }

    @Test
    void removingTheWholeNodeKeyReleasesAllItsDevices() throws Exception {
        deliver("n1", isolated("d0", "d3"));
        operatorEdits(data -> data.remove("n1"));
        assertThat(releasesWithin(Duration.ofSeconds(10)))
                .extracting(IsolationCommand.Release::deviceName)
                .containsExactlyInAnyOrder("d0", "d3");
    }

    @Test
    void anIsolationOfAClusterNotKnownYetIsWrittenOnceItIs() {
        java.util.concurrent.atomic.AtomicBoolean known = new java.util.concurrent.atomic.AtomicBoolean();
        actuator.close();
        actuator = new IsolationActuator(
                new MockConsumer<>("earliest"),
                producer,
                id -> CLUSTER.equals(id) && known.get() ? Optional.of(client) : Optional.empty(),
                Clock.systemUTC(),
                Duration.ofMinutes(5));
        deliver("n1", isolated("d0")); // before the clusters registry told the executor about the cluster
        assertThat(configMap()).isNull();
        assertThat(actuator.unappliedCount()).isEqualTo(1);

        known.set(true);
        actuator.retryUnapplied();
        assertThat(ManualInfoConfigMap.listed(configMap(), "n1")).contains(java.util.Set.of("d0"));
        assertThat(actuator.unappliedCount()).isZero();
    }

    @Test
    void aConcurrentEditIsRetriedAndKept() {
        AtomicInteger calls = new AtomicInteger();
        ConfigMapSync sync = new ConfigMapSync(id -> Optional.of(client), command -> {}, Clock.systemUTC(), "t");
        sync.apply(CLUSTER, "n1", Optional.of(isolated("d0")));
        sync.betweenReadAndWrite = () -> {
            if (calls.incrementAndGet() == 1) {
                operatorEdits(data -> data.put("other-node", "{\"Total\":[],\"Detail\":{}}"));
            }
        };
        assertThat(sync.apply(CLUSTER, "n2", Optional.of(isolated("d7")))).isTrue();

        assertThat(calls.get()).isEqualTo(2);
        assertThat(configMap().getData()).containsKeys("n1", "n2", "other-node");
    }

    /**
     * The operator's ConfigMap, exactly this data. Replaces one that exists: the previous test's actuator may still
     * have written its own an instant after the delete in start() (its informer's handler finishing as it closed).
     */
    private static void operatorCreates(Map<String, String> data) {
        client.configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ManualInfoConfigMap.NAME)
                        .withNamespace(ManualInfoConfigMap.NAMESPACE)
                        .endMetadata()
                        .withData(data)
                        .build())
                .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    }

    private static NodeIsolation node(String key) throws Exception {
        return io.falcon.events.Json.mapper().readValue(configMap().getData().get(key), NodeIsolation.class);
    }

    @Test
    void devicesAnOperatorListedBeforeFalconsFirstWriteAreKeptAndOnlyFalconsOwnAreRemoved() throws Exception {
        NodeIsolation operators = new NodeIsolation(
                List.of("d5"),
                Map.of(
                        "d5",
                        List.of(new NodeIsolation.DeviceIsolation("80E01801", "ManuallySeparateNPU", 1770000000000L))));
        operatorCreates(
                Map.of("n1", ManualInfoConfigMap.json(operators), "n9", ManualInfoConfigMap.json(isolated("d2"))));

        deliver("n1", isolated("d0"));
        assertThat(node("n1").total()).containsExactlyInAnyOrder("d5", "d0");
        assertThat(node("n1").detail().get("d5")).isEqualTo(operators.detail().get("d5"));
        assertThat(configMap().getData().get("n9")).isEqualTo(ManualInfoConfigMap.json(isolated("d2")));

        deliver("n1", isolated("d0", "d1"));
        assertThat(node("n1").total()).containsExactlyInAnyOrder("d5", "d0", "d1");
        // Falcon releases everything it isolated: what the operator put there stays.
        deliver("n1", null);
        assertThat(node("n1").total()).containsExactly("d5");
        assertThat(node("n1").detail().get("d5")).isEqualTo(operators.detail().get("d5"));
        assertThat(configMap().getData().get("n9")).isEqualTo(ManualInfoConfigMap.json(isolated("d2")));
        actuator.runChecks();
        assertThat(releases()).isEmpty();
    }

    @Test
    void aDeviceOtherToolsListedThatFalconIsolatesTooStaysWhenFalconReleasesIt() throws Exception {
        operatorCreates(Map.of("n1", ManualInfoConfigMap.json(isolated("d0"))));

        deliver("n1", isolated("d0", "d1"));
        assertThat(node("n1").total()).containsExactlyInAnyOrder("d0", "d1");
        deliver("n1", null);
        assertThat(node("n1").total()).containsExactly("d0");
    }

    @Test
    void anOperatorRemovingADeviceFalconIsolatedTooStillReleasesIt() throws Exception {
        operatorCreates(Map.of("n1", ManualInfoConfigMap.json(isolated("d0", "d7"))));
        deliver("n1", isolated("d0"));

        operatorEdits(data -> data.put("n1", ManualInfoConfigMap.json(isolated("d7"))));
        assertThat(releasesWithin(Duration.ofSeconds(10)))
                .extracting(IsolationCommand.Release::deviceName)
                .containsExactly("d0");
        assertThat(node("n1").total()).containsExactly("d7");
    }

    private <T extends IsolationCommand> List<T> sent(Class<T> type) {
        return sent().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Runs the actuator's checks until a command of the type matching the condition was sent. */
    private <T extends IsolationCommand> T sentWithin(Class<T> type, java.util.function.Predicate<T> matching) {
        return Await.present(
                "a " + type.getSimpleName() + " from the ConfigMap's watch",
                Duration.ofSeconds(10),
                () -> {
                    actuator.runChecks();
                    return sent(type).stream().filter(matching).findFirst();
                },
                () -> "sent " + sent() + "; the ConfigMap holds " + configMap());
    }

    @Test
    void whatOthersListedInAKnownClustersConfigMapIsSentBeforeFalconIsolatesAnythingThere() {
        operatorCreates(Map.of(
                "n1", ManualInfoConfigMap.json(isolated("d5")),
                "n2", ManualInfoConfigMap.json(isolated("d2", "d3")),
                "n3", "not the RFC's JSON"));
        actuator.close(); // closes its producer too
        producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        actuator = new IsolationActuator(
                new MockConsumer<>("earliest"),
                producer,
                new IsolationClusters() {
                    @Override
                    public Optional<KubernetesClient> client(String clusterId) {
                        return CLUSTER.equals(clusterId) ? Optional.of(client) : Optional.empty();
                    }

                    @Override
                    public java.util.Set<String> known() {
                        return java.util.Set.of(CLUSTER);
                    }
                },
                Clock.systemUTC(),
                Duration.ofMinutes(5));
        actuator.watchKnown(); // no isolation record of the cluster was read

        IsolationCommand.ListedByOthers listed = sentWithin(IsolationCommand.ListedByOthers.class, l -> true);
        assertThat(listed.clusterId()).isEqualTo(CLUSTER);
        assertThat(listed.devices()).isEqualTo(Map.of("n1", List.of("d5"), "n2", List.of("d2", "d3")));
        assertThat(sent(IsolationCommand.ListedByFalcon.class)).isEmpty();
        assertThat(releases()).isEmpty();
        // read, not written: Falcon has isolated nothing there
        assertThat(Optional.ofNullable(configMap().getMetadata().getAnnotations())
                        .orElse(Map.of()))
                .doesNotContainKey(ManualInfoConfigMap.WRITTEN_ANNOTATION);
    }

    @Test
    void falconsDevicesAreSentPerNodeWithTheirDetailAndAgainOnlyWhenTheyChange() {
        deliver("n1", isolated("d0")); // writes the ConfigMap and starts watching it

        IsolationCommand.ListedByFalcon n1 = sentWithin(
                IsolationCommand.ListedByFalcon.class, l -> l.nodeName().equals("n1"));
        assertThat(n1.devices()).isEqualTo(isolated("d0"));
        assertThat(sentWithin(IsolationCommand.ListedByOthers.class, l -> true).devices())
                .isEmpty();

        operatorEdits(data -> data.put("n3", ManualInfoConfigMap.json(isolated("d7"))));
        sentWithin(IsolationCommand.ListedByOthers.class, l -> l.devices().equals(Map.of("n3", List.of("d7"))));
        deliver("n2", isolated("d1"));
        sentWithin(IsolationCommand.ListedByFalcon.class, l -> l.nodeName().equals("n2"));
        // n1 did not change: sent once
        assertThat(sent(IsolationCommand.ListedByFalcon.class))
                .filteredOn(l -> l.nodeName().equals("n1"))
                .hasSize(1);
    }

    @Test
    void aDeviceListedBeforeFalconIsolatedItTooIsListedAsBothAndADeletedConfigMapListsNothing() {
        operatorCreates(Map.of("n1", ManualInfoConfigMap.json(isolated("d0"))));
        deliver("n1", isolated("d0", "d1"));

        ManualInfoConfigMap.Listing listing = ManualInfoConfigMap.listing(configMap());
        assertThat(listing.byOthers()).isEqualTo(Map.of("n1", List.of("d0")));
        assertThat(listing.byFalcon()).isEqualTo(Map.of("n1", isolated("d0", "d1")));
        sentWithin(IsolationCommand.ListedByOthers.class, l -> !l.devices().isEmpty());

        client.configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .withName(ManualInfoConfigMap.NAME)
                .delete();
        sentWithin(IsolationCommand.ListedByOthers.class, l -> l.devices().isEmpty());
        assertThat(sent().get(sent().size() - 1)).isInstanceOf(IsolationCommand.ListedByOthers.class);
    }
}
