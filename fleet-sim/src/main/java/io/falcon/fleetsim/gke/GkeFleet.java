package io.falcon.fleetsim.gke;

import com.google.container.v1.Cluster;
import com.google.container.v1.MasterAuth;
import com.google.container.v1.NodePool;
import com.google.container.v1.Operation;
import com.google.container.v1.ReservationAffinity;
import io.falcon.fleetsim.FleetMilestones;
import io.falcon.fleetsim.FleetRecord;
import io.falcon.fleetsim.compute.ReservationKey;
import io.falcon.fleetsim.compute.ReservationStore;
import io.falcon.fleetsim.compute.ResourcePolicyStore;
import io.falcon.fleetsim.compute.SimulatedReservation;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated GKE control plane: clusters, node pools and long-running operations. All state is guarded by
 * {@code this}; delayed transitions run on a private scheduler.
 */
public final class GkeFleet implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GkeFleet.class);
    static final String API_BASE = "https://container.googleapis.com/v1/";
    static final String MASTER_VERSION = "1.33.5-gke.1162000";
    private static final String RESERVATION_KEY = "compute.googleapis.com/reservation-name";
    /** Node metadata in which Falcon names the job a pool was created for (labels are sanitized). */
    private static final String JOB_ID_METADATA = "falcon-job-id";

    private static final DateTimeFormatter RFC3339 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final Clock clock;
    private final ReservationStore reservations;
    private final ResourcePolicyStore policies;
    private final ScheduledExecutorService scheduler;
    private final Map<ClusterRef, SimulatedCluster> clusters = new LinkedHashMap<>();
    private final Map<ClusterRef, NodeRegistrar> registrars = new LinkedHashMap<>();
    /** Keyed by the operation's resource name. */
    private final Map<String, Operation> operations = new LinkedHashMap<>();

    private final FleetRecord record;
    private final FleetMilestones milestones;

    public GkeFleet(Clock clock, ReservationStore reservations, FleetRecord record) {
        this(clock, reservations, record, new FleetMilestones());
    }

    public GkeFleet(Clock clock, ReservationStore reservations, FleetRecord record, FleetMilestones milestones) {
        this(clock, reservations, new ResourcePolicyStore(clock), record, milestones);
    }

    public GkeFleet(
            Clock clock,
            ReservationStore reservations,
            ResourcePolicyStore policies,
            FleetRecord record,
            FleetMilestones milestones) {
        this.clock = clock;
        this.reservations = reservations;
        this.policies = policies;
        this.record = record;
        this.milestones = milestones;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleet-sim-gke");
            t.setDaemon(true);
            return t;
        });
    }

    public synchronized void addCluster(
            ClusterRef ref,
            String tpuType,
            String kubernetesUrl,
            String caCertBase64,
            NodePoolKnobs knobs,
            NodeRegistrar registrar) {
        clusters.put(ref, new SimulatedCluster(ref, tpuType, kubernetesUrl, caCertBase64, knobs, clock.instant()));
        registrars.put(ref, registrar);
    }

    /**
     * The cluster's control plane moved: its Kubernetes API is at another endpoint and presents another CA (an IP
     * or credential rotation); getCluster says so from now on.
     */
    public synchronized void rotateEndpoint(ClusterRef ref, String kubernetesUrl, String caCertBase64) {
        SimulatedCluster c = cluster(ref);
        c.kubernetesUrl = kubernetesUrl;
        c.caCertificateBase64 = caCertBase64;
    }

    /**
     * The cluster is deleted: getCluster and every call about it or its node pools answer NOT_FOUND, and its pools go
     * with it (their reservation capacity is released). Adding it again makes a new, empty cluster with a new id.
     */
    public synchronized void removeCluster(ClusterRef ref) {
        SimulatedCluster c = cluster(ref);
        for (SimulatedNodePool pool : c.pools.values()) {
            pool.deleted = true; // no late node registration
            if (pool.consumedReservation != null) {
                reservations.release(pool.consumedReservation, pool.hosts);
                pool.consumedReservation = null;
            }
        }
        c.pools.clear();
        clusters.remove(ref);
        registrars.remove(ref);
        // listed by listOperations like GKE's own record of the deletion
        Operation op = startOperation(ref, Operation.Type.DELETE_CLUSTER, ref.path());
        finishOperation(op.getName(), null);
    }

    public synchronized NodePoolKnobs knobs(ClusterRef ref) {
        return cluster(ref).knobs;
    }

    synchronized Cluster getCluster(ClusterRef ref) {
        SimulatedCluster c = cluster(ref);
        Instant now = clock.instant();
        Cluster.Builder b = Cluster.newBuilder()
                .setName(ref.name())
                .setLocation(ref.location())
                .setZone(ref.location())
                .setSelfLink(API_BASE + ref.path())
                .setId(c.id)
                // The sim serves plain HTTP, so the endpoint is a full URL rather than GKE's bare IP.
                .setEndpoint(c.kubernetesUrl)
                .setMasterAuth(MasterAuth.newBuilder().setClusterCaCertificate(c.caCertificateBase64))
                .setStatus(Cluster.Status.RUNNING)
                .setCurrentMasterVersion(MASTER_VERSION)
                .setInitialClusterVersion(MASTER_VERSION)
                .setCreateTime(RFC3339.format(c.createdAt))
                .putResourceLabels("falcon-fleet-sim", "true");
        c.pools.values().stream().filter(p -> p.visibleAt(now)).forEach(p -> b.addNodePools(p.proto));
        return b.build();
    }

    synchronized List<Cluster> listClusters(String project, String location) {
        List<Cluster> result = new ArrayList<>();
        for (ClusterRef ref : clusters.keySet()) {
            if (ref.project().equals(project)
                    && ("-".equals(location) || ref.location().equals(location))) {
                result.add(getCluster(ref));
            }
        }
        return result;
    }

    synchronized List<NodePool> listNodePools(ClusterRef ref) {
        Instant now = clock.instant();
        return cluster(ref).pools.values().stream()
                .filter(p -> p.visibleAt(now))
                .map(p -> p.proto)
                .toList();
    }

    synchronized NodePool getNodePool(ClusterRef ref, String pool) {
        SimulatedNodePool p = cluster(ref).pools.get(pool);
        if (p == null || !p.visibleAt(clock.instant())) {
            throw notFound(ref.nodePoolPath(pool));
        }
        return p.proto;
    }

    synchronized Operation createNodePool(ClusterRef ref, NodePool requested) {
        try {
            Operation op = startCreation(ref, requested);
            recordPool(
                    FleetRecord.Kind.NODE_POOL_CREATE,
                    FleetRecord.Outcome.ACCEPTED,
                    ref,
                    requested.getName(),
                    Optional.ofNullable(requested.getConfig().getMetadataMap().get(JOB_ID_METADATA)));
            return op;
        } catch (StatusRuntimeException e) {
            recordPool(
                    FleetRecord.Kind.NODE_POOL_CREATE,
                    outcomeOf(e),
                    ref,
                    requested.getName(),
                    Optional.ofNullable(requested.getConfig().getMetadataMap().get(JOB_ID_METADATA)));
            throw e;
        }
    }

    synchronized Operation deleteNodePool(ClusterRef ref, String poolName) {
        SimulatedNodePool existing =
                clusters.containsKey(ref) ? clusters.get(ref).pools.get(poolName) : null;
        Optional<String> job = Optional.ofNullable(existing)
                .map(p -> p.proto.getConfig().getMetadataMap().get(JOB_ID_METADATA));
        try {
            Operation op = startDeletion(ref, poolName);
            recordPool(FleetRecord.Kind.NODE_POOL_DELETE, FleetRecord.Outcome.ACCEPTED, ref, poolName, job);
            return op;
        } catch (StatusRuntimeException e) {
            recordPool(FleetRecord.Kind.NODE_POOL_DELETE, outcomeOf(e), ref, poolName, job);
            throw e;
        }
    }

    private void recordPool(
            FleetRecord.Kind kind, FleetRecord.Outcome outcome, ClusterRef ref, String pool, Optional<String> job) {
        Instant at = clock.instant();
        record.add(new FleetRecord.Entry(at, kind, outcome, ref.name(), pool, job));
        if (outcome == FleetRecord.Outcome.ACCEPTED
                && (kind == FleetRecord.Kind.NODE_POOL_CREATE || kind == FleetRecord.Kind.NODE_POOL_DELETE)) {
            FleetMilestones.Type type = kind == FleetRecord.Kind.NODE_POOL_CREATE
                    ? FleetMilestones.Type.NODE_POOL_CREATED
                    : FleetMilestones.Type.NODE_POOL_DELETED;
            milestones.announce(new FleetMilestones.Milestone(at, type, ref.name(), pool, job, Optional.of(pool)));
        }
    }

    private static FleetRecord.Outcome outcomeOf(StatusRuntimeException e) {
        return switch (e.getStatus().getCode()) {
            case ALREADY_EXISTS -> FleetRecord.Outcome.ALREADY_EXISTS;
            case NOT_FOUND -> FleetRecord.Outcome.NOT_FOUND;
            default -> FleetRecord.Outcome.REFUSED;
        };
    }

    private Operation startCreation(ClusterRef ref, NodePool requested) {
        SimulatedCluster c = cluster(ref);
        String name = requested.getName();
        if (name.isEmpty()) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Node pool name must be specified.")
                    .asRuntimeException();
        }
        java.util.Optional<io.grpc.StatusRuntimeException> refused =
                NodePoolRules.check(requested, policy -> workloadPolicyTopology(ref, policy));
        if (refused.isPresent()) {
            throw refused.get();
        }
        refuseDuringClusterOperation(c, ref);
        if (c.pools.containsKey(name)) {
            throw Status.ALREADY_EXISTS
                    .withDescription("Already exists: " + ref.nodePoolPath(name) + ".")
                    .asRuntimeException();
        }
        NodePoolKnobs knobs = c.knobs;
        Instant now = clock.instant();
        boolean lateVisible = knobs.lateVisibilityForAllPools() || isFlexStart(requested);
        Instant visibleFrom = lateVisible ? now.plus(knobs.lateVisibility()) : now;
        NodePool proto = requested.toBuilder()
                .setSelfLink(API_BASE + ref.nodePoolPath(name))
                .setVersion(MASTER_VERSION)
                .setStatus(NodePool.Status.PROVISIONING)
                .setStatusMessage("")
                .build();
        Optional<String> topology = policyTopology(ref, requested);
        SimulatedNodePool pool = new SimulatedNodePool(
                proto, hostsOf(requested, topology), sliceVms(requested, topology), maxNodes(requested), visibleFrom);
        c.pools.put(name, pool);

        Operation op = startOperation(ref, Operation.Type.CREATE_NODE_POOL, ref.nodePoolPath(name));
        pool.pendingCreateOperation = op.getName();
        CreationOutcome outcome = decideOutcome(c, requested);
        log.info(
                "node pool create started cluster={} pool={} hosts={} operation={} outcome={} visibleFrom={}",
                ref.name(),
                name,
                pool.hosts,
                shortName(op),
                outcome.kind,
                visibleFrom);
        if (outcome.kind == OutcomeKind.NEVER_FINISH) {
            return op;
        }
        schedule(knobs.creationDelay(), () -> finishCreation(c, pool, op.getName(), outcome));
        return op;
    }

    /**
     * GKE runs one cluster-level operation at a time, and no node-pool operation beside it (docs: "Troubleshoot
     * concurrent operations"): a create or delete asked for meanwhile is refused, nothing done.
     */
    private void refuseDuringClusterOperation(SimulatedCluster c, ClusterRef ref) {
        if (clock.instant().isBefore(c.knobs.clusterOperationUntil())) {
            throw Status.FAILED_PRECONDITION
                    .withDescription("Cluster is running incompatible operation operation-upgrade-master-" + ref.name()
                            + ". Please wait and try again once it is done.")
                    .asRuntimeException();
        }
    }

    private Operation startDeletion(ClusterRef ref, String poolName) {
        SimulatedCluster c = cluster(ref);
        refuseDuringClusterOperation(c, ref);
        SimulatedNodePool pool = c.pools.get(poolName);
        if (pool == null || !pool.visibleAt(clock.instant())) {
            throw notFound(ref.nodePoolPath(poolName));
        }
        if (pool.proto.getStatus() == NodePool.Status.STOPPING) {
            // GKE refuses a second delete while the first runs, naming the running operation.
            throw Status.FAILED_PRECONDITION
                    .withDescription("Operation " + pool.pendingDeleteOperation + " is currently deleting node pool "
                            + poolName + ". Please wait and try again once it is done.")
                    .asRuntimeException();
        }
        if (pool.pendingCreateOperation != null && c.knobs.rejectDeleteWhileCreating()) {
            throw Status.FAILED_PRECONDITION
                    .withDescription("Operation " + pool.pendingCreateOperation + " is currently creating node pool "
                            + poolName + ". Please wait and try again once it is done.")
                    .asRuntimeException();
        }
        if (pool.pendingCreateOperation != null) {
            // Lenient: GKE may reject this; the sim aborts the creation so callers can clean up stuck pools.
            finishOperation(
                    pool.pendingCreateOperation,
                    com.google.rpc.Status.newBuilder()
                            .setCode(Status.Code.ABORTED.value())
                            .setMessage("Node pool " + poolName + " was deleted while being created.")
                            .build());
            pool.pendingCreateOperation = null;
        }
        NodePool.Status before = pool.proto.getStatus();
        pool.status(NodePool.Status.STOPPING, "");
        Operation op = startOperation(ref, Operation.Type.DELETE_NODE_POOL, ref.nodePoolPath(poolName));
        pool.pendingDeleteOperation = op.getName();
        boolean fail = c.knobs.takeDeletionFailure();
        log.info(
                "node pool delete started cluster={} pool={} operation={} fail={}",
                ref.name(),
                poolName,
                shortName(op),
                fail);
        if (fail) {
            schedule(c.knobs.deletionDelay(), () -> failDeletion(c, pool, op.getName(), before));
        } else {
            scheduleUntilDone(c.knobs.deletionDelay(), () -> finishDeletion(c, pool, op.getName()));
        }
        return op;
    }

    synchronized Operation getOperation(GkeNames.OperationName name) {
        Operation op = operations.get(name.path());
        if (op == null) {
            throw notFound(name.path());
        }
        return op;
    }

    synchronized List<Operation> listOperations(String project, String location) {
        return operations.values().stream()
                .filter(op -> op.getSelfLink().startsWith(API_BASE + "projects/" + project + "/locations/"))
                .filter(op -> "-".equals(location) || op.getLocation().equals(location))
                .toList();
    }

    synchronized Operation cancelOperation(GkeNames.OperationName name) {
        Operation op = getOperation(name);
        if (op.getStatus() != Operation.Status.DONE) {
            finishOperation(
                    op.getName(),
                    com.google.rpc.Status.newBuilder()
                            .setCode(Status.Code.CANCELLED.value())
                            .setMessage("Operation was cancelled.")
                            .build());
        }
        return operations.get(name.path());
    }

    // --- transitions -------------------------------------------------------------------------------------------

    private enum OutcomeKind {
        SUCCESS,
        QUOTA,
        INVALID_RESERVATION,
        NEVER_FINISH
    }

    private record CreationOutcome(OutcomeKind kind) {}

    private CreationOutcome decideOutcome(SimulatedCluster c, NodePool requested) {
        if (c.knobs.neverFinishCreations()) {
            return new CreationOutcome(OutcomeKind.NEVER_FINISH);
        }
        if (c.knobs.takeQuotaFailure()) {
            return new CreationOutcome(OutcomeKind.QUOTA);
        }
        if (c.knobs.takeInvalidReservationFailure()) {
            return new CreationOutcome(OutcomeKind.INVALID_RESERVATION);
        }
        return new CreationOutcome(OutcomeKind.SUCCESS);
    }

    private synchronized void finishCreation(
            SimulatedCluster c, SimulatedNodePool pool, String opName, CreationOutcome outcome) {
        if (pool.deleted || !opName.equals(pool.pendingCreateOperation)) {
            return;
        }
        pool.pendingCreateOperation = null;
        String poolName = pool.name();
        com.google.rpc.Status error = switch (outcome.kind) {
            case QUOTA ->
                error(
                        Status.Code.RESOURCE_EXHAUSTED,
                        "Quota '" + c.knobs.quotaMetric() + "' exceeded. Limit: 0.0 in region "
                                + region(c.ref.location()) + ".");
            case INVALID_RESERVATION ->
                error(
                        Status.Code.INVALID_ARGUMENT,
                        invalidReservationMessage(c, reservationName(pool.proto).orElse("unknown")));
            default -> consumeReservation(c, pool);
        };
        if (error != null) {
            pool.status(NodePool.Status.ERROR, error.getMessage());
            finishOperation(opName, error);
            recordPool(
                    FleetRecord.Kind.NODE_POOL_CREATE_FAILED,
                    FleetRecord.Outcome.REFUSED,
                    c.ref,
                    poolName,
                    Optional.ofNullable(pool.proto.getConfig().getMetadataMap().get(JOB_ID_METADATA)));
            log.info(
                    "node pool create failed cluster={} pool={} code={} message={}",
                    c.ref.name(),
                    poolName,
                    Status.Code.values()[error.getCode()],
                    error.getMessage());
            return;
        }
        pool.status(NodePool.Status.RUNNING, "");
        finishOperation(opName, null);
        log.info(
                "node pool RUNNING cluster={} pool={} hosts={} autoscalingMax={}",
                c.ref.name(),
                poolName,
                pool.hosts,
                pool.maxNodes);
        pool.nodes = pool.hosts;
        if (pool.hosts == 0) {
            // Created from zero with autoscaling: RUNNING without nodes until a pending pod asks for them.
            return;
        }
        PoolNodes nodes = poolNodes(c, pool);
        schedule(c.knobs.nodeRegistrationDelay(), () -> registerNodes(c, pool, nodes));
    }

    // --- cluster autoscaler ------------------------------------------------------------------------------------

    /**
     * Where a cluster's Kubernetes side reports its pending, unschedulable pods, for the cluster autoscaler to scale
     * autoscaled pools up for them. Usable before the cluster is added (reports are then ignored).
     */
    public PendingPods pendingPods(ClusterRef ref) {
        return new PendingPods() {
            @Override
            public void unschedulable(List<PendingPod> pods) {
                scaleUp(ref, pods);
            }

            @Override
            public void occupied(Set<String> nodeNames) {
                scaleDown(ref, nodeNames);
            }
        };
    }

    /**
     * GKE's cluster autoscaler, scale-up only: each pending pod is given to the first autoscaled pool (in creation
     * order) whose nodes it fits, i.e. whose node labels its nodeSelector names (cloud.google.com/gke-nodepool in
     * practice); a pool gets new nodes when pods are left over for it (SimulatedNodePool#scaleUpFor), unless the
     * cluster is out of capacity (the stockout knob). The new nodes register after the scale-up delay. Sources:
     * https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler (scales a pool up when pods are
     * unschedulable and would fit its nodes); https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
     * (a multi-host TPU slice pool scales atomically between 0 and all of its VMs);
     * https://cloud.google.com/kubernetes-engine/docs/concepts/dws (flex-start pools get their VMs when capacity is
     * obtainable, and wait otherwise). These are GKE's own actions: they go through no API server of the sim's and so
     * are not anyone's API calls.
     */
    private synchronized void scaleUp(ClusterRef ref, List<PendingPods.PendingPod> pending) {
        SimulatedCluster c = clusters.get(ref);
        if (c == null) {
            return;
        }
        Map<SimulatedNodePool, PoolNodes> shapes = new LinkedHashMap<>();
        Map<SimulatedNodePool, List<PendingPods.PendingPod>> waiting = new LinkedHashMap<>();
        for (SimulatedNodePool pool : c.pools.values()) {
            if (pool.maxNodes > 0 && !pool.deleted && pool.proto.getStatus() == NodePool.Status.RUNNING) {
                shapes.put(pool, poolNodes(c, pool));
                waiting.put(pool, new ArrayList<>());
            }
        }
        for (PendingPods.PendingPod pod : pending) {
            shapes.entrySet().stream()
                    .filter(e -> e.getValue().selectedBy(pod.nodeSelector()))
                    .findFirst()
                    .ifPresent(e -> waiting.get(e.getKey()).add(pod));
        }
        for (Map.Entry<SimulatedNodePool, List<PendingPods.PendingPod>> e : waiting.entrySet()) {
            SimulatedNodePool pool = e.getKey();
            List<String> names =
                    e.getValue().stream().map(PendingPods.PendingPod::name).toList();
            pool.scaledFor.retainAll(names); // the others were placed, or are gone
            List<PendingPods.PendingPod> fresh = e.getValue().stream()
                    .filter(p -> !pool.scaledFor.contains(p.name()))
                    .toList();
            // TPU pods take a node each; any number of other pods share one
            long tpuPods =
                    fresh.stream().filter(PendingPods.PendingPod::needsTpu).count();
            int wanted = (int) tpuPods + (fresh.size() > tpuPods ? 1 : 0);
            if (wanted == 0) {
                continue;
            }
            if (c.knobs.stockout()) {
                log.debug(
                        "node pool scale-up waits for capacity (stockout) cluster={} pool={} pendingPods={}",
                        ref.name(),
                        pool.name(),
                        fresh.size());
                continue;
            }
            int add = pool.scaleUpFor(wanted);
            if (add == 0) {
                continue;
            }
            PoolNodes nodes = shapes.get(pool).range(pool.nodes, add);
            pool.nodes += add;
            // a whole slice serves every pod waiting for it; single VMs serve one pod each
            fresh.stream().limit(add >= wanted ? fresh.size() : add).forEach(p -> pool.scaledFor.add(p.name()));
            log.info(
                    "node pool scale-up started cluster={} pool={} add={} nodes={} pendingPods={}",
                    ref.name(),
                    pool.name(),
                    add,
                    pool.nodes,
                    fresh.size());
            schedule(c.knobs.scaleUpDelay(), () -> registerScaleUp(c, pool, nodes));
        }
    }

    /**
     * GKE's cluster autoscaler scaling down: an autoscaled RUNNING pool none of whose nodes holds a pod, and for which
     * no scale-up is pending, loses its nodes once they have been unneeded for the pool's consolidation delay
     * (NodeConfig.consolidation_delay, GKE's default 10 min; the scaleDownAfter knob for tests). The whole pool at
     * once: a multi-host slice scales atomically, and Falcon's pools serve one Job each, so a pool is needed or
     * unneeded as a whole. Reservation capacity stays taken (not modelled). Sources:
     * https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler (removes nodes unneeded for a
     * while), https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus (multi-host slices scale to zero).
     */
    private void scaleDown(ClusterRef ref, Set<String> occupied) {
        List<SimulatedNodePool> unneeded = new ArrayList<>();
        synchronized (this) {
            SimulatedCluster c = clusters.get(ref);
            if (c == null) {
                return;
            }
            Instant now = clock.instant();
            for (SimulatedNodePool pool : c.pools.values()) {
                if (pool.maxNodes == 0
                        || pool.deleted
                        || pool.nodes == 0
                        || pool.proto.getStatus() != NodePool.Status.RUNNING
                        || !pool.scaledFor.isEmpty()
                        || holdsPods(poolNodes(c, pool), pool.nodes, occupied)) {
                    pool.unneededSince = null;
                    continue;
                }
                if (pool.unneededSince == null) {
                    pool.unneededSince = now;
                    continue;
                }
                Duration after = c.knobs.scaleDownAfter().orElseGet(() -> consolidationDelay(pool.proto));
                if (!now.isBefore(pool.unneededSince.plus(after))) {
                    log.info(
                            "node pool scale-down cluster={} pool={} removed={} unneededFor={}",
                            ref.name(),
                            pool.name(),
                            pool.nodes,
                            Duration.between(pool.unneededSince, now));
                    pool.nodes = 0;
                    pool.unneededSince = null;
                    unneeded.add(pool);
                }
            }
        }
        // the Kubernetes side outside the fleet's lock, as on deletion; a scale-up for a new pod registers its nodes
        // only after the scale-up delay
        unneeded.forEach(pool -> registrar(ref).removeNodes(ref.name(), pool.name()));
    }

    private static boolean holdsPods(PoolNodes shape, int nodes, Set<String> occupied) {
        for (int i = 0; i < nodes; i++) {
            if (occupied.contains(shape.nodeName(i))) {
                return true;
            }
        }
        return false;
    }

    /** NodeConfig.consolidation_delay, or GKE's default of 10 minutes when the pool does not set one. */
    static Duration consolidationDelay(NodePool pool) {
        if (!pool.getConfig().hasConsolidationDelay()) {
            return Duration.ofMinutes(10);
        }
        com.google.protobuf.Duration d = pool.getConfig().getConsolidationDelay();
        return Duration.ofSeconds(d.getSeconds(), d.getNanos());
    }

    private void registerScaleUp(SimulatedCluster c, SimulatedNodePool pool, PoolNodes nodes) {
        synchronized (this) {
            if (pool.deleted) {
                log.info(
                        "node pool scale-up dropped (pool deleted) cluster={} pool={} nodes={}",
                        c.ref.name(),
                        pool.name(),
                        nodes.hosts());
                return;
            }
        }
        registerNodes(c, pool, nodes);
    }

    private void registerNodes(SimulatedCluster c, SimulatedNodePool pool, PoolNodes nodes) {
        synchronized (this) {
            if (pool.deleted) {
                return;
            }
        }
        registrar(c.ref).addNodes(nodes);
        if (milestones.observed()) {
            milestones.announce(new FleetMilestones.Milestone(
                    clock.instant(),
                    FleetMilestones.Type.NODES_READY,
                    c.ref.name(),
                    pool.name(),
                    Optional.ofNullable(pool.proto.getConfig().getMetadataMap().get(JOB_ID_METADATA)),
                    Optional.of(pool.name())));
        }
    }

    /** A failed delete: the operation ends with an error and the pool is back where it was. */
    private synchronized void failDeletion(
            SimulatedCluster c, SimulatedNodePool pool, String opName, NodePool.Status before) {
        pool.pendingDeleteOperation = null;
        pool.status(before == NodePool.Status.STOPPING ? NodePool.Status.RUNNING : before, "");
        finishOperation(
                opName,
                error(
                        Status.Code.INTERNAL,
                        "Internal error while deleting node pool " + pool.name()
                                + ": instance group manager deletion failed. Please retry."));
        log.info("node pool delete failed (knob) cluster={} pool={}", c.ref.name(), pool.name());
    }

    /**
     * The pool's nodes leave Kubernetes and its reservation capacity is given back before the pool disappears and
     * its operation is DONE, so whoever sees the operation DONE sees the nodes gone (as with GKE).
     */
    private void finishDeletion(SimulatedCluster c, SimulatedNodePool pool, String opName) {
        synchronized (this) {
            pool.deleted = true; // no late node registration from here on
        }
        registrar(c.ref).removeNodes(c.ref.name(), pool.name());
        ReservationKey consumed;
        synchronized (this) {
            c.pools.remove(pool.name(), pool);
            consumed = pool.consumedReservation;
            pool.consumedReservation = null;
        }
        if (consumed != null) {
            reservations.release(consumed, pool.hosts);
        }
        synchronized (this) {
            finishOperation(opName, null);
        }
        log.info("node pool deleted cluster={} pool={}", c.ref.name(), pool.name());
    }

    /**
     * Takes reservation capacity for a pool with a specific reservation affinity; returns an error if impossible. A
     * pool whose affinity is ANY, or that sets none (GKE's default is ANY, as Compute's), consumes a matching
     * reservation that does not require specific consumption if one has room for its VMs, else runs on demand; a
     * NO_RESERVATION pool, and a flex-start one (its VMs come from Dynamic Workload Scheduler), consume none.
     */
    private com.google.rpc.Status consumeReservation(SimulatedCluster c, SimulatedNodePool pool) {
        if (reservations == null) {
            return null;
        }
        Optional<String> wanted = reservationName(pool.proto);
        if (wanted.isEmpty()) {
            ReservationAffinity.Type type =
                    pool.proto.getConfig().getReservationAffinity().getConsumeReservationType();
            boolean any =
                    type == ReservationAffinity.Type.ANY_RESERVATION || type == ReservationAffinity.Type.UNSPECIFIED;
            if (any && !isFlexStart(pool.proto)) {
                reservations
                        .anyMatching(
                                c.ref.project(),
                                c.ref.location(),
                                pool.proto.getConfig().getMachineType(),
                                pool.hosts)
                        .filter(r -> reservations.tryConsume(r.key(), pool.hosts))
                        .ifPresent(r -> {
                            pool.consumedReservation = r.key();
                            log.info(
                                    "node pool {} of cluster {} consumes reservation {} (affinity {})",
                                    pool.name(),
                                    c.ref.name(),
                                    r.key().path(),
                                    type);
                        });
            }
            return null;
        }
        String value = wanted.get();
        String project = c.ref.project();
        String name = value;
        // Shared reservations are named projects/{owner}/reservations/{name}.
        String[] parts = value.split("/");
        if (parts.length >= 4 && parts[0].equals("projects")) {
            project = parts[1];
            name = parts[parts.length - 1];
        }
        Optional<SimulatedReservation> reservation = reservations.findByName(project, name);
        if (reservation.isEmpty()) {
            return error(Status.Code.INVALID_ARGUMENT, invalidReservationMessage(c, value));
        }
        if (!reservations.tryConsume(reservation.get().key(), pool.hosts)) {
            return error(
                    Status.Code.RESOURCE_EXHAUSTED,
                    "Reservation '" + reservation.get().key().path()
                            + "' does not have enough available capacity: requested " + pool.hosts + ", available "
                            + reservations
                                    .findByName(project, name)
                                    .map(SimulatedReservation::available)
                                    .orElse(0L) + ".");
        }
        pool.consumedReservation = reservation.get().key();
        return null;
    }

    private static String invalidReservationMessage(SimulatedCluster c, String reservation) {
        return "Invalid value for field 'nodePool.config.reservationAffinity': reservation '" + reservation
                + "' does not exist or cannot be consumed by node pools of cluster " + c.ref.path() + ".";
    }

    private static Optional<String> reservationName(NodePool pool) {
        ReservationAffinity affinity = pool.getConfig().getReservationAffinity();
        if (affinity.getConsumeReservationType() != ReservationAffinity.Type.SPECIFIC_RESERVATION
                || !RESERVATION_KEY.equals(affinity.getKey())
                || affinity.getValuesCount() == 0) {
            return Optional.empty();
        }
        return Optional.of(affinity.getValues(0));
    }

    private PoolNodes poolNodes(SimulatedCluster c, SimulatedNodePool pool) {
        NodePool p = pool.proto;
        Optional<TpuMachineTypes.TpuMachine> tpu =
                TpuMachineTypes.of(p.getConfig().getMachineType());
        String accelerator = p.getConfig().getAcceleratorsCount() > 0
                ? p.getConfig().getAccelerators(0).getAcceleratorType()
                : tpu.map(TpuMachineTypes.TpuMachine::acceleratorLabel).orElse(c.tpuType == null ? "" : c.tpuType);
        // GKE labels the nodes with the slice's topology: the placement's (tpuTopology or the workload policy's
        // acceleratorTopology), else the machine type's single-VM shape
        String topology = policyTopology(c.ref, p)
                .or(() -> tpu.map(TpuMachineTypes.TpuMachine::singleHostTopology))
                .orElse("");
        return new PoolNodes(
                c.ref.name(),
                p.getName(),
                pool.hosts,
                p.getConfig().getMachineType(),
                accelerator,
                topology,
                Map.copyOf(p.getConfig().getLabelsMap()),
                accelerator.isEmpty()
                        ? 0
                        : tpu.map(TpuMachineTypes.TpuMachine::chips).orElse(4),
                0);
    }

    private Optional<String> workloadPolicyTopology(ClusterRef ref, String policy) {
        return policies.get(ref.project(), region(ref.location()), policy)
                .map(ResourcePolicyStore.WorkloadPolicy::acceleratorTopology);
    }

    /** The topology a pool's placement gives its slice: tpuTopology, or its workload policy's; empty without. */
    private Optional<String> policyTopology(ClusterRef ref, NodePool p) {
        if (!p.getPlacementPolicy().getTpuTopology().isBlank()) {
            return Optional.of(p.getPlacementPolicy().getTpuTopology());
        }
        if (!p.getPlacementPolicy().getPolicyName().isBlank()) {
            return workloadPolicyTopology(ref, p.getPlacementPolicy().getPolicyName())
                    .filter(t -> !t.isBlank());
        }
        return Optional.empty();
    }

    /**
     * Nodes a pool brings when it becomes RUNNING: initialNodeCount; 0 for a pool created from zero with autoscaling
     * on (it gets nodes only for pending pods); else the slice's VMs (a multi-host pool without a count is refused
     * by NodePoolRules, a single-host one gets its VM).
     */
    static int hostsOf(NodePool pool, Optional<String> topology) {
        if (pool.getInitialNodeCount() > 0) {
            return pool.getInitialNodeCount();
        }
        if (pool.getAutoscaling().getEnabled()) {
            return 0;
        }
        return sliceVms(pool, topology);
    }

    /** VMs of the pool's slice: one node per VM of the placement's topology ("4x4" of 4-chip VMs = 4), else 1. */
    static int sliceVms(NodePool pool, Optional<String> topology) {
        int chips = topology.map(TpuMachineTypes::chips).orElse(0);
        int chipsPerVm = TpuMachineTypes.of(pool.getConfig().getMachineType())
                .map(TpuMachineTypes.TpuMachine::chips)
                .orElse(4);
        return Math.max(1, chips / chipsPerVm);
    }

    /**
     * The autoscaler's upper bound: total_max_node_count, else max_node_count (per zone; the sim's pools live in one
     * zone); 0 when autoscaling is off.
     */
    static int maxNodes(NodePool pool) {
        if (!pool.getAutoscaling().getEnabled()) {
            return 0;
        }
        return pool.getAutoscaling().getTotalMaxNodeCount() > 0
                ? pool.getAutoscaling().getTotalMaxNodeCount()
                : pool.getAutoscaling().getMaxNodeCount();
    }

    private static boolean isFlexStart(NodePool pool) {
        return pool.getConfig().getFlexStart() || pool.getQueuedProvisioning().getEnabled();
    }

    // --- operations --------------------------------------------------------------------------------------------

    private Operation startOperation(ClusterRef ref, Operation.Type type, String target) {
        String id = "operation-" + clock.millis() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()).substring(0, 8);
        String name = "projects/" + ref.project() + "/locations/" + ref.location() + "/operations/" + id;
        Operation op = Operation.newBuilder()
                .setName(id)
                .setZone(ref.location())
                .setLocation(ref.location())
                .setOperationType(type)
                .setStatus(Operation.Status.RUNNING)
                .setSelfLink(API_BASE + name)
                .setTargetLink(API_BASE + target)
                .setStartTime(RFC3339.format(clock.instant()))
                .build();
        operations.put(name, op);
        return op;
    }

    /** Marks an operation DONE; a non-null error becomes the operation's {@code error} and statusMessage. */
    private void finishOperation(String opId, com.google.rpc.Status error) {
        String key = operations.keySet().stream()
                .filter(k -> k.endsWith("/operations/" + opId))
                .findFirst()
                .orElseThrow();
        Operation.Builder b = operations.get(key).toBuilder()
                .setStatus(Operation.Status.DONE)
                .setEndTime(RFC3339.format(clock.instant()));
        if (error != null) {
            b.setError(error).setStatusMessage(error.getMessage());
        }
        operations.put(key, b.build());
    }

    private static com.google.rpc.Status error(Status.Code code, String message) {
        return com.google.rpc.Status.newBuilder()
                .setCode(code.value())
                .setMessage(message)
                .build();
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    private SimulatedCluster cluster(ClusterRef ref) {
        SimulatedCluster c = clusters.get(ref);
        if (c == null) {
            throw notFound(ref.path());
        }
        return c;
    }

    private synchronized NodeRegistrar registrar(ClusterRef ref) {
        return registrars.getOrDefault(ref, NodeRegistrar.NONE);
    }

    private static io.grpc.StatusRuntimeException notFound(String path) {
        return Status.NOT_FOUND.withDescription("Not found: " + path + ".").asRuntimeException();
    }

    /** us-central1-a -> us-central1; a region stays as it is. */
    static String region(String location) {
        String[] parts = location.split("-");
        return parts.length == 3 && parts[2].length() == 1 ? parts[0] + "-" + parts[1] : location;
    }

    private static String shortName(Operation op) {
        return op.getName();
    }

    /**
     * As {@link #schedule}, for an idempotent transition that must happen (a deletion GKE accepted completes): one
     * that fails (the simulated Kubernetes API did not answer: the mock server's event loop stalls for seconds when a
     * killed client's watches drop) is tried again a second later, as GKE's operation goes on, instead of leaving the
     * pool STOPPING for ever.
     */
    private void scheduleUntilDone(Duration delay, Runnable task) {
        scheduler.schedule(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.warn("GKE sim transition failed, trying again in 1 s: {}", e.toString());
                        scheduleUntilDone(Duration.ofSeconds(1), task);
                    }
                },
                Math.max(0, delay.toNanos()),
                TimeUnit.NANOSECONDS);
    }

    private void schedule(Duration delay, Runnable task) {
        scheduler.schedule(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.error("GKE sim transition failed", e);
                    }
                },
                Math.max(0, delay.toNanos()),
                TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
