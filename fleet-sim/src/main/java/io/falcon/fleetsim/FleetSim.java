package io.falcon.fleetsim;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.fleetsim.compute.ComputeRestServer;
import io.falcon.fleetsim.compute.ReservationStore;
import io.falcon.fleetsim.compute.ResourcePolicyStore;
import io.falcon.fleetsim.gke.ClusterRef;
import io.falcon.fleetsim.gke.GkeFleet;
import io.falcon.fleetsim.gke.GkeServer;
import io.falcon.fleetsim.gke.NodePoolKnobs;
import io.falcon.fleetsim.kube.EdgeKubernetes;
import io.falcon.fleetsim.kube.EndpointProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated GKE fleet speaking the real wire protocols: the GKE v1 ClusterManager gRPC API, the Compute v1
 * reservations REST API, and one Kubernetes API server (with a Job/Pod lifecycle simulator) per edge cluster.
 * For tests and the local demo only.
 */
public final class FleetSim implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FleetSim.class);

    private final ReservationStore reservations;
    private final ResourcePolicyStore policies;
    private final GkeFleet gke;
    private final Map<ClusterRef, EdgeKubernetes> edges;
    private ApiLatency latency = new ApiLatency();
    private final Map<ClusterRef, NodePoolKnobs> knobs;
    private final GkeServer gkeServer;
    private final ComputeRestServer computeServer;
    private final FleetRecord record;
    private final FleetMilestones milestones;
    private final ApiCalls calls;
    /** The public endpoint of each cluster's Kubernetes API (what getCluster gives), in front of its API server. */
    private final Map<ClusterRef, EndpointProxy> endpoints = new java.util.concurrent.ConcurrentHashMap<>();

    private final Map<ClusterRef, String> tpuTypes = new java.util.concurrent.ConcurrentHashMap<>();
    private FleetSimConfig config;

    private FleetSim(
            ReservationStore reservations,
            ResourcePolicyStore policies,
            GkeFleet gke,
            Map<ClusterRef, EdgeKubernetes> edges,
            Map<ClusterRef, NodePoolKnobs> knobs,
            GkeServer gkeServer,
            ComputeRestServer computeServer,
            FleetRecord record,
            FleetMilestones milestones,
            ApiCalls calls) {
        this.calls = calls;
        this.record = record;
        this.milestones = milestones;
        this.reservations = reservations;
        this.policies = policies;
        this.gke = gke;
        this.edges = new java.util.concurrent.ConcurrentHashMap<>(edges);
        this.knobs = knobs;
        this.gkeServer = gkeServer;
        this.computeServer = computeServer;
    }

    public static FleetSim start(FleetSimConfig config) {
        List<AutoCloseable> started = new ArrayList<>();
        FleetRecord record = config.recordFile().map(FleetRecord::appendingTo).orElseGet(FleetRecord::inMemory);
        started.add(record);
        try {
            ReservationStore reservations = new ReservationStore(config.clock());
            FleetMilestones milestones = new FleetMilestones();
            ApiCalls calls = new ApiCalls();
            ResourcePolicyStore policies = new ResourcePolicyStore(config.clock());
            GkeFleet gke = new GkeFleet(config.clock(), reservations, policies, record, milestones);
            started.add(gke);
            ApiLatency latency = new ApiLatency();
            Map<ClusterRef, EdgeKubernetes> edges = new LinkedHashMap<>();
            Map<ClusterRef, NodePoolKnobs> knobs = new LinkedHashMap<>();
            Map<ClusterRef, EndpointProxy> endpoints = new LinkedHashMap<>();
            Map<ClusterRef, String> tpuTypes = new LinkedHashMap<>();
            for (EdgeClusterConfig cluster : config.clusters()) {
                ClusterRef ref = cluster.ref();
                if (edges.containsKey(ref)) {
                    throw new IllegalArgumentException("duplicate cluster " + ref);
                }
                EdgeKubernetes edge = EdgeKubernetes.start(
                        ref.name(),
                        0,
                        config.clock(),
                        config.simulatorTick(),
                        record,
                        milestones,
                        calls,
                        gke.pendingPods(ref),
                        latency);
                started.add(edge);
                EndpointProxy endpoint = EndpointProxy.to(edge.port());
                started.add(endpoint);
                NodePoolKnobs clusterKnobs = new NodePoolKnobs(config.poolCreationDelay(), config.poolDeletionDelay());
                gke.addCluster(ref, cluster.tpuType(), endpoint.url(), fakeCaCertificate(), clusterKnobs, edge.nodes());
                edges.put(ref, edge);
                endpoints.put(ref, endpoint);
                knobs.put(ref, clusterKnobs);
                tpuTypes.put(ref, cluster.tpuType());
                for (ReservationConfig r : cluster.reservations()) {
                    reservations.define(
                            ref.project(),
                            r.zone() == null ? ref.location() : r.zone(),
                            r.name(),
                            r.machineType(),
                            r.count(),
                            r.inUseCount());
                }
            }
            GkeServer gkeServer = new GkeServer(gke, config.gkePort(), calls, latency);
            started.add(gkeServer);
            ComputeRestServer computeServer =
                    new ComputeRestServer(reservations, policies, config.computePort(), calls, latency);
            started.add(computeServer);
            FleetSim sim = new FleetSim(
                    reservations, policies, gke, edges, knobs, gkeServer, computeServer, record, milestones, calls);
            sim.endpoints.putAll(endpoints);
            sim.tpuTypes.putAll(tpuTypes);
            sim.config = config;
            sim.latency = latency;
            return sim;
        } catch (IOException | RuntimeException e) {
            for (AutoCloseable c : started) {
                closeQuietly(c);
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("fleet-sim failed to start", io);
            }
            throw (RuntimeException) e;
        }
    }

    /** GKE gRPC endpoint, "127.0.0.1:PORT", plaintext (configure the channel with usePlaintext()). */
    public String gkeEndpoint() {
        return gkeServer.endpoint();
    }

    /** Compute REST endpoint, "http://127.0.0.1:PORT" (scheme, no trailing slash). */
    public String computeEndpoint() {
        return computeServer.endpoint();
    }

    /** Master URL of a cluster's Kubernetes API, "http://127.0.0.1:PORT"; also what getCluster returns as endpoint. */
    public String kubernetesUrl(String project, String location, String cluster) {
        edge(project, location, cluster);
        return endpoints.get(new ClusterRef(project, location, cluster)).url();
    }

    /**
     * The cluster's control plane moves (an IP rotation, a credential rotation): its Kubernetes API is at a new
     * endpoint from now on, presenting another CA, and getCluster says so; the old endpoint refuses connections and
     * its open ones (watches) are cut. Everything in the cluster stays as it was.
     */
    public synchronized void rotateEndpoint(String project, String location, String cluster) {
        ClusterRef ref = new ClusterRef(project, location, cluster);
        EdgeKubernetes edge = edge(project, location, cluster);
        EndpointProxy old = endpoints.get(ref);
        EndpointProxy moved = EndpointProxy.to(edge.port());
        endpoints.put(ref, moved);
        gke.rotateEndpoint(ref, moved.url(), rotatedCaCertificate());
        old.close();
        log.info("cluster {} control plane moved to {}", ref.path(), moved.url());
    }

    /**
     * The GKE cluster is deleted: GKE answers NOT_FOUND for it and its node pools (gone with it), its Kubernetes API
     * endpoint refuses connections, and everything in it is gone.
     */
    public synchronized void deleteCluster(String project, String location, String cluster) {
        ClusterRef ref = new ClusterRef(project, location, cluster);
        EdgeKubernetes edge = edge(project, location, cluster);
        gke.removeCluster(ref);
        endpoints.remove(ref).close();
        edges.remove(ref);
        edge.close();
        log.info("cluster {} deleted", ref.path());
    }

    /**
     * A cluster of the same name is created again after {@link #deleteCluster}: a new, empty cluster (no node pools,
     * no Jobs, no nodes) with a new id and a new endpoint. Its node-pool knobs are the old ones.
     */
    public synchronized void createClusterAgain(String project, String location, String cluster) {
        ClusterRef ref = new ClusterRef(project, location, cluster);
        if (edges.containsKey(ref) || !knobs.containsKey(ref)) {
            throw new IllegalStateException("cluster " + ref.path() + " exists, or never did");
        }
        EdgeKubernetes edge = EdgeKubernetes.start(
                ref.name(),
                0,
                config.clock(),
                config.simulatorTick(),
                record,
                milestones,
                calls,
                gke.pendingPods(ref),
                latency);
        EndpointProxy endpoint = EndpointProxy.to(edge.port());
        gke.addCluster(ref, tpuTypes.get(ref), endpoint.url(), fakeCaCertificate(), knobs.get(ref), edge.nodes());
        edges.put(ref, edge);
        endpoints.put(ref, endpoint);
        log.info("cluster {} created again at {}", ref.path(), endpoint.url());
    }

    /** Node pool timing and failure knobs of one cluster. */
    public NodePoolKnobs nodePoolKnobs(String project, String location, String cluster) {
        NodePoolKnobs k = knobs.get(new ClusterRef(project, location, cluster));
        if (k == null) {
            throw new IllegalArgumentException("no such cluster " + new ClusterRef(project, location, cluster));
        }
        return k;
    }

    /** Failure knobs of a cluster's Kubernetes API server (e.g. Job creations denied). */
    public io.falcon.fleetsim.kube.ApiKnobs kubernetesKnobs(String project, String location, String cluster) {
        return edge(project, location, cluster).knobs();
    }

    /** Workload policies served by the Compute sim (and resolved by GKE); their insert delay can be changed. */
    public ResourcePolicyStore resourcePolicies() {
        return policies;
    }

    /** Reservations served by the Compute sim; define and change them at runtime. */
    public ReservationStore reservations() {
        return reservations;
    }

    /** The sim's own fabric8 client for a cluster (JDK http client); do not close it. */
    public KubernetesClient kubernetesClient(String project, String location, String cluster) {
        return edge(project, location, cluster).client();
    }

    /** How long its APIs take to answer (zero unless a harness sets it). */
    public ApiLatency apiLatency() {
        return latency;
    }

    /** Every node-pool and Kubernetes Job create and delete served so far, with its outcome. */
    public FleetRecord record() {
        return record;
    }

    /** Every kind of GKE, Compute and Kubernetes call served so far, per caller (User-Agent). */
    public ApiCalls apiCalls() {
        return calls;
    }

    /** The moments of each job's life as the fleet sees them, for a listener in the same JVM. */
    public FleetMilestones milestones() {
        return milestones;
    }

    public List<ClusterRef> clusters() {
        return List.copyOf(edges.keySet());
    }

    private EdgeKubernetes edge(String project, String location, String cluster) {
        EdgeKubernetes edge = edges.get(new ClusterRef(project, location, cluster));
        if (edge == null) {
            throw new IllegalArgumentException("no such cluster " + new ClusterRef(project, location, cluster));
        }
        return edge;
    }

    /**
     * A real, parseable self-signed X.509 CA certificate (PEM, base64 as in {@code masterAuth.clusterCaCertificate}),
     * the same for every cluster, so clients that build a trust store from it accept it. Its private key was thrown
     * away: the sim serves plain HTTP and nothing is ever signed with it.
     */
    public static String fakeCaCertificate() {
        return caCertificate("fake-cluster-ca.pem");
    }

    /** Another such certificate: the CA a cluster presents after {@link #rotateEndpoint}. */
    public static String rotatedCaCertificate() {
        return caCertificate("fake-cluster-ca-rotated.pem");
    }

    private static String caCertificate(String resource) {
        try (var in = FleetSim.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " missing from the fleet-sim jar");
            }
            return Base64.getEncoder().encodeToString(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        closeQuietly(computeServer);
        closeQuietly(gkeServer);
        closeQuietly(gke);
        endpoints.values().forEach(FleetSim::closeQuietly);
        edges.values().forEach(FleetSim::closeQuietly);
        closeQuietly(record);
        log.info("fleet-sim stopped");
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("close failed for {}", c, e);
        }
    }

    /**
     * Runs fleet-sim as its own process until killed: {@code FleetSim [GKE_PORT [COMPUTE_PORT]] [--fleet FILE]
     * [--record FILE] [--pool-delays CREATE,DELETE] [--tick DURATION]}. Ports default to any free port; {@code --fleet}
     * is a JSON {@code {"clusters":[EdgeClusterConfig...]}} (default: a demo fleet of two clusters); {@code --record}
     * appends the {@link FleetRecord} to FILE; durations are written like 3s or 500ms. Prints the endpoints, then a line
     * {@code fleet-sim ready gke=HOST:PORT compute=URL} that a supervisor waits for.
     */
    public static void main(String[] args) throws Exception {
        // gRPC logs through java.util.logging: into slf4j, so that the output is the log configuration's lines only
        if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
            org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
            org.slf4j.bridge.SLF4JBridgeHandler.install();
        }
        List<String> positional = new ArrayList<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                options.put(args[i], args[++i]);
            } else {
                positional.add(args[i]);
            }
        }
        for (String option : options.keySet()) {
            if (!List.of("--fleet", "--record", "--pool-delays", "--tick").contains(option)) {
                throw new IllegalArgumentException("unknown option " + option
                        + " (known: --fleet FILE, --record FILE, --pool-delays CREATE,DELETE, --tick DURATION)");
            }
        }
        List<EdgeClusterConfig> clusters = options.containsKey("--fleet")
                ? readFleet(java.nio.file.Path.of(options.get("--fleet")))
                : List.of(
                        EdgeClusterConfig.of("falcon-demo", "us-central1", "edge-a", "tpu-v5-lite-podslice")
                                .withReservation(
                                        new ReservationConfig("us-central1-a", "tpu-v5e-a", "ct5lp-hightpu-4t", 4, 0)),
                        EdgeClusterConfig.of("falcon-demo", "europe-west4", "edge-b", "tpu-v5-lite-podslice")
                                .withReservation(new ReservationConfig(
                                        "europe-west4-a", "tpu-v5e-b", "ct5lp-hightpu-4t", 2, 1)));
        String[] delays = options.getOrDefault("--pool-delays", "3s,2s").split(",");
        if (delays.length != 2) {
            throw new IllegalArgumentException("--pool-delays takes CREATE,DELETE, e.g. 3s,2s");
        }
        FleetSimConfig config = new FleetSimConfig(
                clusters,
                positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 0,
                positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 0,
                duration(delays[0]),
                duration(delays[1]),
                duration(options.getOrDefault("--tick", "100ms")),
                java.time.Clock.systemUTC());
        if (options.containsKey("--record")) {
            config = config.withRecordFile(java.nio.file.Path.of(options.get("--record")));
        }
        FleetSim sim = FleetSim.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(sim::close, "fleet-sim-shutdown"));
        System.out.println("GKE (gRPC, plaintext): " + sim.gkeEndpoint());
        System.out.println("Compute (REST):        " + sim.computeEndpoint());
        for (ClusterRef ref : sim.clusters()) {
            System.out.println(
                    "Kubernetes " + ref.path() + ": " + sim.kubernetesUrl(ref.project(), ref.location(), ref.name()));
        }
        System.out.println("fleet-sim ready gke=" + sim.gkeEndpoint() + " compute=" + sim.computeEndpoint());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** Reads {@code {"clusters":[{"project":..,"location":..,"name":..,"tpuType":..,"reservations":[..]}]}}. */
    static List<EdgeClusterConfig> readFleet(java.nio.file.Path file) throws IOException {
        record Fleet(List<EdgeClusterConfig> clusters) {}
        Fleet fleet = new com.fasterxml.jackson.databind.ObjectMapper().readValue(file.toFile(), Fleet.class);
        if (fleet.clusters() == null || fleet.clusters().isEmpty()) {
            throw new IllegalArgumentException(file + " names no clusters");
        }
        return fleet.clusters();
    }

    /** 3s, 500ms, 2m or an ISO-8601 duration. */
    static Duration duration(String text) {
        String t = text.strip();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        return Duration.parse(t.startsWith("P") ? t : "PT" + t);
    }
}
