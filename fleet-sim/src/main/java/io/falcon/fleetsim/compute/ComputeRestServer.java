package io.falcon.fleetsim.compute;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.falcon.fleetsim.ApiCalls;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the read side of the Compute Engine v1 reservations REST API, and get/insert of regional resource policies
 * (workload policies) with their region operations, in the JSON shape the real
 * {@code com.google.cloud.compute.v1.ReservationsClient} and {@code ResourcePoliciesClient} (http-json transport)
 * parse.
 */
public final class ComputeRestServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ComputeRestServer.class);
    private static final String SELF_LINK_BASE = "https://www.googleapis.com/compute/v1/";
    private static final Pattern GET_ONE =
            Pattern.compile("^/compute/v1/projects/([^/]+)/zones/([^/]+)/reservations/([^/]+)$");
    private static final Pattern LIST = Pattern.compile("^/compute/v1/projects/([^/]+)/zones/([^/]+)/reservations$");
    private static final Pattern AGGREGATED = Pattern.compile("^/compute/v1/projects/([^/]+)/aggregated/reservations$");
    private static final Pattern POLICY =
            Pattern.compile("^/compute/v1/projects/([^/]+)/regions/([^/]+)/resourcePolicies/([^/]+)$");
    private static final Pattern POLICIES =
            Pattern.compile("^/compute/v1/projects/([^/]+)/regions/([^/]+)/resourcePolicies$");
    private static final Pattern REGION_OPERATION =
            Pattern.compile("^/compute/v1/projects/([^/]+)/regions/([^/]+)/operations/([^/]+?)(/wait)?$");
    /** Accelerator topologies of workload policies: 2 or 3 dimensions (e.g. 2x2x2). */
    private static final Pattern ACCELERATOR_TOPOLOGY = Pattern.compile("[1-9][0-9]{0,2}(x[1-9][0-9]{0,2}){1,2}");

    /** The one filter shape the sim understands: {@code name = "x"} (also {@code name eq x}); others are ignored. */
    private static final Pattern NAME_FILTER =
            Pattern.compile("^\\s*\\(?\\s*name\\s*(?:=|eq)\\s*\"?([^\"\\s)]+)\"?\\s*\\)?\\s*$");

    private static final DateTimeFormatter RFC3339 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

    private final ReservationStore store;
    private final ResourcePolicyStore policies;
    /** Insert operations by name: the policy each creates, whose insert delay decides when it is DONE. */
    private final Map<String, PolicyOperation> operations = new java.util.concurrent.ConcurrentHashMap<>();

    /** An insert's operation as its DONE form and the policy it creates. */
    private record PolicyOperation(Map<String, Object> done, ResourcePolicyStore.WorkloadPolicy policy) {}

    private final java.util.concurrent.atomic.AtomicLong operationIds = new java.util.concurrent.atomic.AtomicLong();
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;
    private final io.falcon.fleetsim.ApiLatency latency;
    private final ExecutorService executor;
    private final ApiCalls calls;

    public ComputeRestServer(ReservationStore store, int port) throws IOException {
        this(store, new ResourcePolicyStore(java.time.Clock.systemUTC()), port, new ApiCalls());
    }

    /** As above, noting every request it serves (method and path template) in calls. */
    public ComputeRestServer(ReservationStore store, int port, ApiCalls calls) throws IOException {
        this(store, new ResourcePolicyStore(java.time.Clock.systemUTC()), port, calls);
    }

    public ComputeRestServer(ReservationStore store, ResourcePolicyStore policies, int port) throws IOException {
        this(store, policies, port, new ApiCalls());
    }

    /** Serving reservations and the workload policies in policies, noting every request it serves in calls. */
    public ComputeRestServer(ReservationStore store, ResourcePolicyStore policies, int port, ApiCalls calls)
            throws IOException {
        this(store, policies, port, calls, new io.falcon.fleetsim.ApiLatency());
    }

    /** As above, each request answered only after the Compute latency. */
    public ComputeRestServer(
            ReservationStore store,
            ResourcePolicyStore policies,
            int port,
            ApiCalls calls,
            io.falcon.fleetsim.ApiLatency latency)
            throws IOException {
        this.latency = latency;
        this.store = store;
        this.policies = policies;
        this.calls = calls;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        this.executor = Executors.newFixedThreadPool(32, r -> {
            Thread t = new Thread(r, "fleet-sim-compute");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        log.info("compute reservations REST sim listening on {}", endpoint());
    }

    /** Endpoint for {@code ReservationsSettings.newBuilder().setEndpoint(..)}: scheme, host, port, no slash. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        io.falcon.fleetsim.ApiLatency.pause(latency.compute());
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            calls.add(
                    ApiCalls.Api.COMPUTE,
                    exchange.getRequestMethod(),
                    ApiCalls.computeTemplate(path),
                    exchange.getRequestHeaders().getFirst("User-Agent"));
            if (servePolicies(exchange, path)) {
                return;
            }
            if (!"GET".equals(exchange.getRequestMethod())) {
                send(
                        exchange,
                        405,
                        error(
                                405,
                                "Method " + exchange.getRequestMethod() + " not supported by fleet-sim",
                                "methodNotAllowed"));
                return;
            }
            Matcher one = GET_ONE.matcher(path);
            if (one.matches()) {
                var found = store.get(one.group(1), one.group(2), one.group(3));
                if (found.isPresent()) {
                    send(exchange, 200, toJson(found.get()));
                } else {
                    ReservationKey key = new ReservationKey(one.group(1), one.group(2), one.group(3));
                    send(exchange, 404, error(404, "The resource '" + key.path() + "' was not found", "notFound"));
                }
                return;
            }
            Matcher list = LIST.matcher(path);
            if (list.matches()) {
                send(exchange, 200, listJson(list.group(1), list.group(2)));
                return;
            }
            Matcher aggregated = AGGREGATED.matcher(path);
            if (aggregated.matches()) {
                String filter = queryParam(exchange.getRequestURI().getRawQuery(), "filter");
                send(exchange, 200, aggregatedJson(aggregated.group(1), filter));
                return;
            }
            send(exchange, 404, error(404, "fleet-sim does not serve " + path, "notFound"));
        } catch (RuntimeException e) {
            log.warn("compute sim failed to serve {}", exchange.getRequestURI(), e);
            send(exchange, 500, error(500, "fleet-sim internal error: " + e, "backendError"));
        }
    }

    /** Resource policies and region operations; false when the path is none of theirs. */
    private boolean servePolicies(HttpExchange exchange, String path) throws IOException {
        String method = exchange.getRequestMethod();
        Matcher one = POLICY.matcher(path);
        if (one.matches() && method.equals("GET")) {
            var found = policies.get(one.group(1), one.group(2), one.group(3));
            if (found.isPresent()) {
                send(exchange, 200, toJson(found.get()));
            } else {
                send(
                        exchange,
                        404,
                        error(
                                404,
                                "The resource 'projects/" + one.group(1) + "/regions/" + one.group(2)
                                        + "/resourcePolicies/" + one.group(3) + "' was not found",
                                "notFound"));
            }
            return true;
        }
        Matcher insert = POLICIES.matcher(path);
        if (insert.matches() && method.equals("POST")) {
            insertPolicy(exchange, insert.group(1), insert.group(2));
            return true;
        }
        Matcher op = REGION_OPERATION.matcher(path);
        if (op.matches() && (method.equals("GET") || method.equals("POST"))) {
            PolicyOperation found = operations.get(op.group(3));
            if (found == null) {
                send(
                        exchange,
                        404,
                        error(
                                404,
                                "The resource 'projects/" + op.group(1) + "/regions/" + op.group(2) + "/operations/"
                                        + op.group(3) + "' was not found",
                                "notFound"));
            } else {
                // the client polls (GET) or waits (POST .../wait) until DONE; both see the operation as it is now
                send(exchange, 200, policies.done(found.policy()) ? found.done() : running(found.done()));
            }
            return true;
        }
        return false;
    }

    /**
     * resourcePolicies.insert of a workload policy: the name must be a Compute resource name, the type one of the two
     * the API knows, the accelerator topology a topology; a second policy of the same name is 409 alreadyExists.
     */
    private void insertPolicy(HttpExchange exchange, String project, String region) throws IOException {
        com.fasterxml.jackson.databind.JsonNode body = json.readTree(exchange.getRequestBody());
        String name = body.path("name").asText("");
        if (!ResourcePolicyStore.NAME.matcher(name).matches()) {
            send(
                    exchange,
                    400,
                    error(
                            400,
                            "Invalid value for field 'resource.name': '" + name
                                    + "'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
                            "invalid"));
            return;
        }
        com.fasterxml.jackson.databind.JsonNode workload = body.path("workloadPolicy");
        if (workload.isMissingNode()) {
            send(
                    exchange,
                    400,
                    error(
                            400,
                            "fleet-sim models workload policies only; 'resource.workloadPolicy' is" + " missing",
                            "invalid"));
            return;
        }
        String type = workload.path("type").asText("");
        if (!type.equals("HIGH_THROUGHPUT") && !type.equals("HIGH_AVAILABILITY")) {
            send(
                    exchange,
                    400,
                    error(
                            400,
                            "Invalid value for field 'resource.workloadPolicy.type': '" + type
                                    + "'. Must be one of [HIGH_AVAILABILITY, HIGH_THROUGHPUT]",
                            "invalid"));
            return;
        }
        String topology = workload.path("acceleratorTopology").asText("");
        if (!topology.isEmpty() && !ACCELERATOR_TOPOLOGY.matcher(topology).matches()) {
            send(
                    exchange,
                    400,
                    error(
                            400,
                            "Invalid value for field 'resource.workloadPolicy.acceleratorTopology': '" + topology
                                    + "'.",
                            "invalid"));
            return;
        }
        var created = policies.create(project, region, name, type, topology);
        if (created.isEmpty()) {
            send(
                    exchange,
                    409,
                    error(
                            409,
                            "The resource 'projects/" + project + "/regions/" + region + "/resourcePolicies/" + name
                                    + "' already exists",
                            "alreadyExists"));
            return;
        }
        String opName = "operation-" + System.currentTimeMillis() + "-" + operationIds.incrementAndGet();
        Map<String, Object> operation = new LinkedHashMap<>();
        operation.put("kind", "compute#operation");
        operation.put("id", Long.toUnsignedString(created.get().id() + 1));
        operation.put("name", opName);
        operation.put("operationType", "insert");
        operation.put("targetLink", SELF_LINK_BASE + created.get().path());
        operation.put("targetId", Long.toUnsignedString(created.get().id()));
        operation.put("status", "DONE");
        operation.put("progress", 100);
        operation.put("insertTime", RFC3339.format(created.get().createdAt()));
        operation.put("startTime", RFC3339.format(created.get().createdAt()));
        operation.put("endTime", RFC3339.format(created.get().doneAt()));
        operation.put("region", SELF_LINK_BASE + "projects/" + project + "/regions/" + region);
        operation.put(
                "selfLink", SELF_LINK_BASE + "projects/" + project + "/regions/" + region + "/operations/" + opName);
        // Compute answers an insert with a pending operation that the client polls (regionOperations.get) until
        // DONE, after the store's insert delay
        operations.put(opName, new PolicyOperation(operation, created.get()));
        send(exchange, 200, running(operation));
    }

    private static Map<String, Object> running(Map<String, Object> done) {
        Map<String, Object> pending = new LinkedHashMap<>(done);
        pending.put("status", "RUNNING");
        pending.put("progress", 0);
        pending.remove("endTime");
        return pending;
    }

    private Map<String, Object> toJson(ResourcePolicyStore.WorkloadPolicy p) {
        Map<String, Object> workload = new LinkedHashMap<>();
        workload.put("type", p.type());
        if (!p.acceleratorTopology().isEmpty()) {
            workload.put("acceleratorTopology", p.acceleratorTopology());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", "compute#resourcePolicy");
        body.put("id", Long.toUnsignedString(p.id()));
        body.put("creationTimestamp", RFC3339.format(p.createdAt()));
        body.put("name", p.name());
        body.put("region", SELF_LINK_BASE + "projects/" + p.project() + "/regions/" + p.region());
        body.put("selfLink", SELF_LINK_BASE + p.path());
        body.put("status", "READY");
        body.put("workloadPolicy", workload);
        return body;
    }

    private Map<String, Object> toJson(SimulatedReservation r) {
        Map<String, Object> instanceProperties = new LinkedHashMap<>();
        instanceProperties.put("machineType", r.machineType());
        Map<String, Object> specific = new LinkedHashMap<>();
        // int64/uint64 fields travel as JSON strings in Google REST APIs.
        specific.put("count", Long.toString(r.count()));
        specific.put("inUseCount", Long.toString(r.inUseCount()));
        specific.put("assuredCount", Long.toString(r.count()));
        specific.put("instanceProperties", instanceProperties);

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", "compute#reservation");
        body.put("id", Long.toUnsignedString(r.id()));
        body.put("creationTimestamp", RFC3339.format(r.createdAt()));
        body.put("name", r.key().name());
        body.put(
                "zone",
                SELF_LINK_BASE + "projects/" + r.key().project() + "/zones/"
                        + r.key().zone());
        body.put("selfLink", SELF_LINK_BASE + r.key().path());
        body.put("specificReservation", specific);
        body.put("specificReservationRequired", r.specificRequired());
        body.put("status", "READY");
        return body;
    }

    private Map<String, Object> listJson(String project, String zone) {
        List<Map<String, Object>> items =
                store.list(project, zone).stream().map(this::toJson).toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", "compute#reservationList");
        body.put("id", "projects/" + project + "/zones/" + zone + "/reservations");
        body.put("items", items);
        body.put("selfLink", SELF_LINK_BASE + "projects/" + project + "/zones/" + zone + "/reservations");
        return body;
    }

    /** {@code reservations.aggregatedList}: the project's reservations grouped by "zones/{zone}". */
    private Map<String, Object> aggregatedJson(String project, String filter) {
        Matcher byName = filter == null ? null : NAME_FILTER.matcher(filter);
        String name = byName != null && byName.matches() ? byName.group(1) : null;
        Map<String, Object> items = new java.util.TreeMap<>();
        for (SimulatedReservation r : store.all(project)) {
            if (name != null && !name.equals(r.key().name())) {
                continue;
            }
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> zone = (List<Map<String, Object>>) ((Map<String, Object>) items.computeIfAbsent(
                            "zones/" + r.key().zone(), z -> Map.of("reservations", new java.util.ArrayList<>())))
                    .get("reservations");
            zone.add(toJson(r));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", "compute#reservationAggregatedList");
        body.put("id", "projects/" + project + "/aggregated/reservations");
        body.put("items", items);
        body.put("selfLink", SELF_LINK_BASE + "projects/" + project + "/aggregated/reservations");
        return body;
    }

    static String queryParam(String rawQuery, String key) {
        if (rawQuery == null) {
            return null;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String k = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (k.equals(key)) {
                return eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** Google API error envelope, as Compute returns it. */
    private static Map<String, Object> error(int code, String message, String reason) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("message", message);
        detail.put("domain", "global");
        detail.put("reason", reason);
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        error.put("errors", List.of(detail));
        return Map.of("error", error);
    }

    private void send(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
