package io.falcon.fleetsim.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.falcon.fleetsim.ApiCalls;
import io.falcon.fleetsim.FleetMilestones;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.fleetsim.gke.PendingPods;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes side of one simulated edge cluster: a fabric8 mock API server in CRUD mode (plain HTTP, watches
 * over websocket), the nodes of its pools, and the Job/Pod lifecycle simulator.
 */
public final class EdgeKubernetes implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EdgeKubernetes.class);
    /** The mock server logs every request through java.util.logging at INFO; held strongly so the level sticks. */
    private static final java.util.logging.Logger MOCK_SERVER_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    static {
        MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final String cluster;
    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final SimulatedNodes nodes;
    private final JobLifecycleSimulator jobs;
    private final ScheduledExecutorService housekeeping;
    private final ApiKnobs knobs;

    /**
     * CRUD dispatcher that can answer Job creations with an error, per {@link ApiKnobs}, and writes every Job create
     * and delete it answers to the {@link FleetRecord}.
     */
    private static final class KnobbedDispatcher extends KubernetesCrudDispatcher {
        private static final java.util.regex.Pattern JOBS =
                java.util.regex.Pattern.compile("^/apis/batch/v1/namespaces/[^/]+/jobs/?(\\?.*)?$");
        private static final java.util.regex.Pattern ONE_JOB =
                java.util.regex.Pattern.compile("^/apis/batch/v1/namespaces/[^/]+/jobs/([^/?]+)/?(\\?.*)?$");
        private static final ObjectMapper JSON = new ObjectMapper();
        private final ApiKnobs knobs;
        private final String cluster;
        private final FleetRecord record;
        private final FleetMilestones milestones;
        private final Clock clock;
        private final ApiCalls calls;
        private final io.falcon.fleetsim.ApiLatency latency;

        KnobbedDispatcher(
                ApiKnobs knobs,
                String cluster,
                FleetRecord record,
                FleetMilestones milestones,
                Clock clock,
                ApiCalls calls,
                io.falcon.fleetsim.ApiLatency latency) {
            this.latency = latency;
            this.knobs = knobs;
            this.cluster = cluster;
            this.record = record;
            this.milestones = milestones;
            this.clock = clock;
            this.calls = calls;
        }

        /** Every request (watches included: their upgrade request comes through here too) is noted in ApiCalls. */
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            calls.addKubernetes(request.getMethod(), request.getPath(), request.getHeader("User-Agent"));
            MockResponse response = super.dispatch(request);
            java.time.Duration delay = latency.kubernetes();
            // the simulator's own requests stand for what happens inside the cluster (kubelets registering nodes, the
            // Job controller), which fleet-sim times itself: only callers from outside pay the network's latency
            boolean insider = ApiCalls.SIM_USER_AGENT.equals(request.getHeader("User-Agent"));
            if (!delay.isZero() && !insider && !request.getPath().contains("watch=true")) {
                response.setBodyDelay(delay); // answered later, without holding the server's event loop
            }
            return response;
        }

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            if (!JOBS.matcher(request.getPath()).matches()) {
                return super.handleCreate(request);
            }
            // read before the CRUD dispatcher consumes the request body
            String body = new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            MockResponse response;
            ApiKnobs.Rejection rejection = knobs.takeJobCreateRejection();
            if (rejection != null) {
                String status = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        + "\"message\":" + quote(rejection.message()) + ",\"reason\":" + quote(rejection.reason())
                        + ",\"code\":" + rejection.code() + "}";
                response = new MockResponse().setResponseCode(rejection.code()).setBody(status);
            } else {
                response = super.handleCreate(request);
            }
            String name = "";
            Optional<String> job = Optional.empty();
            Optional<String> pool = Optional.empty();
            try {
                JsonNode tree = JSON.readTree(body);
                JsonNode metadata = tree.path("metadata");
                name = metadata.path("name").asText("");
                job = Optional.ofNullable(metadata.path("annotations").get(JOB_ID_ANNOTATION))
                        .map(JsonNode::asText);
                pool = Optional.ofNullable(tree.path("spec")
                                .path("template")
                                .path("spec")
                                .path("nodeSelector")
                                .get(SimulatedNodes.NODE_POOL_LABEL))
                        .map(JsonNode::asText);
            } catch (java.io.IOException | RuntimeException e) {
                log.debug("unreadable job create body cluster={}", cluster, e);
            }
            FleetRecord.Outcome outcome = outcomeOf(response.code());
            java.time.Instant at = clock.instant();
            record.add(new FleetRecord.Entry(at, FleetRecord.Kind.K8S_JOB_CREATE, outcome, cluster, name, job));
            if (outcome == FleetRecord.Outcome.ACCEPTED) {
                milestones.announce(new FleetMilestones.Milestone(
                        at, FleetMilestones.Type.K8S_JOB_POSTED, cluster, name, job, pool));
            }
            return response;
        }

        @Override
        public MockResponse handleDelete(String path) {
            java.util.regex.Matcher one = ONE_JOB.matcher(path);
            MockResponse response = super.handleDelete(path);
            if (one.matches()) {
                record.add(new FleetRecord.Entry(
                        clock.instant(),
                        FleetRecord.Kind.K8S_JOB_DELETE,
                        outcomeOf(response.code()),
                        cluster,
                        one.group(1),
                        Optional.empty()));
            }
            return response;
        }

        private static FleetRecord.Outcome outcomeOf(int code) {
            if (code >= 200 && code < 300) {
                return FleetRecord.Outcome.ACCEPTED;
            }
            return switch (code) {
                case 409 -> FleetRecord.Outcome.ALREADY_EXISTS;
                case 404 -> FleetRecord.Outcome.NOT_FOUND;
                default -> FleetRecord.Outcome.REFUSED;
            };
        }

        private static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    default -> b.append(c);
                }
            }
            return b.append('"').toString();
        }
    }

    /** Annotation in which Falcon names the job a Kubernetes Job runs (labels are sanitized). */
    private static final String JOB_ID_ANNOTATION = "falcon.io/job-id";

    private EdgeKubernetes(
            String cluster,
            KubernetesMockServer server,
            KubernetesClient client,
            Clock clock,
            Duration tick,
            ApiKnobs knobs,
            FleetMilestones milestones,
            PendingPods pending) {
        this.cluster = cluster;
        this.knobs = knobs;
        this.server = server;
        this.client = client;
        this.nodes = new SimulatedNodes(client, clock);
        this.jobs = new JobLifecycleSimulator(cluster, client, clock, tick, milestones, pending);
        this.jobs.knobs(knobs);
        jobs.podExitTime(knobs::podExitTime);
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleet-sim-k8s-housekeeping-" + cluster);
            t.setDaemon(true);
            return t;
        });
        // The mock server records every request for test assertions; drain them so a long demo does not grow.
        housekeeping.scheduleWithFixedDelay(this::dropRecordedRequests, 10, 10, TimeUnit.SECONDS);
    }

    private void dropRecordedRequests() {
        try {
            while (server.takeRequest(0, TimeUnit.MILLISECONDS) != null) {
                // discard
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.debug("could not drain recorded requests cluster={}", cluster, e);
        }
    }

    /** Starts the API server on 127.0.0.1 ({@code port} 0 = any free port) and the simulator. */
    public static EdgeKubernetes start(String cluster, int port, Clock clock, Duration tick, FleetRecord record) {
        return start(cluster, port, clock, tick, record, new FleetMilestones());
    }

    /** As above, announcing the Job POSTs it accepts and the Jobs' pods running and Jobs finishing to milestones. */
    public static EdgeKubernetes start(
            String cluster, int port, Clock clock, Duration tick, FleetRecord record, FleetMilestones milestones) {
        return start(cluster, port, clock, tick, record, milestones, new ApiCalls());
    }

    /** As above, noting every request it serves in calls. */
    public static EdgeKubernetes start(
            String cluster,
            int port,
            Clock clock,
            Duration tick,
            FleetRecord record,
            FleetMilestones milestones,
            ApiCalls calls) {
        return start(
                cluster,
                port,
                clock,
                tick,
                record,
                milestones,
                calls,
                PendingPods.NONE,
                new io.falcon.fleetsim.ApiLatency());
    }

    /** As above, reporting the pods the Job simulator cannot place to {@code pending} (GKE's cluster autoscaler). */
    public static EdgeKubernetes start(
            String cluster,
            int port,
            Clock clock,
            Duration tick,
            FleetRecord record,
            FleetMilestones milestones,
            ApiCalls calls,
            PendingPods pending,
            io.falcon.fleetsim.ApiLatency latency) {
        ApiKnobs knobs = new ApiKnobs();
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(),
                new MockWebServer(),
                new HashMap<>(),
                new KnobbedDispatcher(knobs, cluster, record, milestones, clock, calls, latency),
                false);
        server.init(InetAddress.getLoopbackAddress(), port);
        String url = "http://127.0.0.1:" + server.getPort();
        KubernetesClient client = client(url);
        EdgeKubernetes edge = new EdgeKubernetes(cluster, server, client, clock, tick, knobs, milestones, pending);
        edge.jobs.start();
        log.info("kubernetes API sim for cluster={} listening on {}", cluster, url);
        return edge;
    }

    /**
     * A fabric8 client on the JDK http client, pointed at a sim API server; it identifies itself as {@link
     * ApiCalls#SIM_USER_AGENT}, so its requests are not counted as a client's.
     */
    public static KubernetesClient client(String url) {
        return new KubernetesClientBuilder()
                .withTaskExecutor(SIM_CLIENT_TASKS)
                .withHttpClientFactory(new SimHttpClientFactory())
                .withConfig(new ConfigBuilder()
                        .withMasterUrl(url)
                        .withUserAgent(ApiCalls.SIM_USER_AGENT)
                        .withTrustCerts(true)
                        .withNamespace("default")
                        .withRequestRetryBackoffLimit(1)
                        .build())
                .build();
    }

    /** The tasks (informer deliveries, response handling) of fleet-sim's own clients, on threads of its own. */
    private static final java.util.concurrent.Executor SIM_CLIENT_TASKS =
            io.falcon.fleetsim.SimThreads.cachedPool("fleet-sim-k8s-client");

    /** The JDK http client of fleet-sim's own clients, on threads of its own (the executor's use the default pool). */
    private static final class SimHttpClientFactory extends JdkHttpClientFactory {
        private static final java.util.concurrent.Executor HTTP =
                io.falcon.fleetsim.SimThreads.cachedPool("fleet-sim-k8s-http");

        @Override
        protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
            builder.executor(HTTP);
        }
    }

    /** The API server's own port (the sim's controllers talk to it directly; clients through its endpoint). */
    public int port() {
        return server.getPort();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    public String cluster() {
        return cluster;
    }

    /** The simulator's own client; handy for tests that want to look at or seed the cluster. */
    public KubernetesClient client() {
        return client;
    }

    /** Failure knobs of this API server. */
    public ApiKnobs knobs() {
        return knobs;
    }

    public SimulatedNodes nodes() {
        return nodes;
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
        jobs.close();
        client.close();
        try {
            server.destroy();
        } catch (IllegalStateException slowToClose) {
            // fabric8's mock server waits a few seconds for its event loop to close and gives up on a loaded
            // machine; the close goes on in the background and the cluster is gone for the clients either way
            log.warn("kubernetes API sim for cluster={} was slow to close: {}", cluster, slowToClose.getMessage());
        }
    }
}
