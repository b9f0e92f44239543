package io.falcon.bench.executor;

import io.falcon.events.TpuSlice;
import io.falcon.events.executor.ClusterTarget;
import io.falcon.events.executor.ExecutorCommand.EnsureJob;
import io.falcon.executor.core.ApiException;
import io.falcon.executor.core.EdgeApi;
import io.falcon.executor.core.Ownership;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The edge clusters' Kubernetes APIs in memory, as the executor's {@link EdgeApi} sees them: every node of a pool the
 * fake GKE holds is registered and Ready, a Job is created at once and never has a pod left. Each call first waits out
 * the Kubernetes latency once per request the real {@code KubernetesEdgeApi} makes for it.
 */
final class FakeEdge implements EdgeApi {
    /**
     * Requests the real createJob makes: the Job (suspended), its NetworkPolicy, the patch that resumes it, and for a
     * multi-host slice its headless Service.
     */
    static int createJobRequests(TpuSlice slice) {
        return 3 + (slice.multiHost() ? 1 : 0);
    }

    /** A Job created here, and when (System.nanoTime) its creation returned. */
    record CreatedJob(FoundJob job, long createdNanos) {}

    private final CloudLatency latency;
    private final Ownership ownership;
    private final ApiCalls calls;
    private final FakeGke gke;
    private final ConcurrentHashMap<String, CreatedJob> jobs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> createdNanosByJobId = new ConcurrentHashMap<>();

    FakeEdge(CloudLatency latency, Ownership ownership, ApiCalls calls, FakeGke gke) {
        this.latency = latency;
        this.ownership = ownership;
        this.calls = calls;
        this.gke = gke;
    }

    /** When the Kubernetes Job of the Falcon job was created (System.nanoTime), if it was. */
    Optional<Long> jobCreatedNanos(String jobId) {
        return Optional.ofNullable(createdNanosByJobId.get(jobId));
    }

    @Override
    public NodeCount nodes(ClusterTarget cluster, String pool) {
        requests("k8s.listNodes", 1);
        int hosts = gke.poolNow(cluster, pool).map(p -> p.expectedHosts()).orElse(0);
        return new NodeCount(hosts, hosts);
    }

    @Override
    public String createJob(ClusterTarget cluster, EnsureJob command) {
        TpuSlice slice;
        try {
            slice = TpuSlice.resolve(command.tpuType(), command.topology());
        } catch (IllegalArgumentException e) {
            throw new ApiException(ApiException.Kind.INVALID, e.getMessage(), e);
        }
        requests("k8s.createJob", createJobRequests(slice));
        String uid = UUID.randomUUID().toString();
        FoundJob job = new FoundJob(
                command.k8sJobName(),
                uid,
                ownership.labels(command.jobId(), slice.topology().text()),
                Optional.of(command.jobId()));
        CreatedJob created = new CreatedJob(job, System.nanoTime());
        if (jobs.putIfAbsent(key(cluster, command.k8sJobName()), created) != null) {
            throw new ApiException(
                    ApiException.Kind.ALREADY_EXISTS, "jobs.batch \"" + command.k8sJobName() + "\" already exists");
        }
        createdNanosByJobId.put(command.jobId(), created.createdNanos());
        return uid;
    }

    @Override
    public Optional<FoundJob> findJob(ClusterTarget cluster, String name) {
        requests("k8s.getJob", 1);
        return Optional.ofNullable(jobs.get(key(cluster, name))).map(CreatedJob::job);
    }

    @Override
    public boolean deleteJob(ClusterTarget cluster, String name) {
        requests("k8s.deleteJob", 1);
        return jobs.remove(key(cluster, name)) != null;
    }

    @Override
    public int unfinishedPods(ClusterTarget cluster, String k8sJobName) {
        requests("k8s.listPods", 1);
        return 0;
    }

    private void requests(String call, int count) {
        calls.count(call);
        latency.awaitKubernetesRequests(count);
    }

    private static String key(ClusterTarget cluster, String name) {
        return cluster.resourceName() + "/jobs/" + name;
    }
}
