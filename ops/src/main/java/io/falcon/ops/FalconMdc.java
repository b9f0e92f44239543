package io.falcon.ops;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.MDC;

/**
 * The MDC keys of Falcon's structured logs ({@value #JOB}, {@value #CLUSTER}, {@value #NODE_POOL},
 * {@value #DEVICE}, {@value #NODE}), set for the duration of a block:
 * {@code try (FalconMdc mdc = FalconMdc.job(jobId).cluster(clusterId)) { ... }}. Null values are skipped.
 */
public final class FalconMdc implements AutoCloseable {
    public static final String JOB = "job";
    public static final String CLUSTER = "cluster";
    public static final String NODE_POOL = "nodePool";
    public static final String DEVICE = "device";
    public static final String NODE = "node";

    private final List<String> keys = new ArrayList<>();

    private FalconMdc() {}

    public static FalconMdc empty() {
        return new FalconMdc();
    }

    public static FalconMdc job(String jobId) {
        return new FalconMdc().put(JOB, jobId);
    }

    public FalconMdc cluster(String clusterId) {
        return put(CLUSTER, clusterId);
    }

    public FalconMdc nodePool(String nodePool) {
        return put(NODE_POOL, nodePool);
    }

    public FalconMdc node(String node) {
        return put(NODE, node);
    }

    public FalconMdc device(String device) {
        return put(DEVICE, device);
    }

    public FalconMdc put(String key, String value) {
        if (value != null) {
            MDC.put(key, value);
            keys.add(key);
        }
        return this;
    }

    @Override
    public void close() {
        keys.forEach(MDC::remove);
    }
}
