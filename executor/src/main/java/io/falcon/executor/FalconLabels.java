package io.falcon.executor;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Labels and annotations Falcon puts on what it creates (GKE node pools, Kubernetes Jobs and Pods), so that the
 * executor can find its objects again by label after a restart.
 */
public final class FalconLabels {
    public static final String MANAGED_BY = "managed-by";
    public static final String MANAGED_BY_VALUE = "falcon";
    public static final String JOB = "falcon-job";
    /**
     * The Falcon installation ({@code falcon.installation}) that created the object: with {@link #MANAGED_BY}, what
     * proves an object is this Falcon's to adopt, list or delete. Names prove nothing (another team, or another
     * Falcon, may have an object of the same name).
     */
    public static final String INSTALLATION = "falcon-installation";

    public static final String TOPOLOGY = "falcon-topology";
    /** GKE resource label on node pools: when Falcon asked for the pool, in epoch seconds (for the inventory). */
    public static final String CREATED_AT = "falcon-created-at";
    /** GKE node metadata key carrying the unsanitized job id of the pool's creator (labels are sanitized). */
    public static final String METADATA_JOB_ID = "falcon-job-id";
    /** Pod template label naming the Kubernetes Job, independent of what the job controller adds. */
    public static final String K8S_JOB = "falcon-k8s-job";

    /** Annotations carrying the unsanitized identity of the task, read back by the status reconciler. */
    public static final String ANNOTATION_JOB_ID = "falcon.io/job-id";

    public static final String ANNOTATION_CLUSTER_ID = "falcon.io/cluster-id";
    public static final String ANNOTATION_TPU_TYPE = "falcon.io/tpu-type";
    public static final String ANNOTATION_EXPECTED_PODS = "falcon.io/expected-pods";

    private static final int MAX_LABEL_VALUE = 63;

    private FalconLabels() {}

    /**
     * A value valid both as a GCP label value (lowercase letters, digits, '-', '_', at most 63) and as a Kubernetes
     * label value (alphanumeric at both ends).
     */
    public static String sanitize(String value) {
        String lower = value.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]", "-");
        if (lower.length() > MAX_LABEL_VALUE) {
            lower = lower.substring(0, MAX_LABEL_VALUE);
        }
        return lower.replaceAll("^[^a-z0-9]+", "").replaceAll("[^a-z0-9]+$", "");
    }

    /** managed-by, falcon-installation, falcon-job and (when given) falcon-topology. */
    public static Map<String, String> of(String installation, String jobId, String topology) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MANAGED_BY, MANAGED_BY_VALUE);
        labels.put(INSTALLATION, installation);
        labels.put(JOB, sanitize(jobId));
        if (topology != null) {
            labels.put(TOPOLOGY, sanitize(topology));
        }
        return labels;
    }

    /** Whether labels carry this installation's ownership (managed-by falcon and falcon-installation). */
    public static boolean ownedBy(Map<String, String> labels, String installation) {
        return labels != null
                && MANAGED_BY_VALUE.equals(labels.get(MANAGED_BY))
                && installation.equals(labels.get(INSTALLATION));
    }

    /** What an object of another owner carries, for a Message: its managed-by, installation and job labels. */
    public static String ownerOf(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return "no labels";
        }
        if (!labels.containsKey(MANAGED_BY) && !labels.containsKey(INSTALLATION) && !labels.containsKey(JOB)) {
            return "no Falcon labels";
        }
        return MANAGED_BY + "=" + labels.getOrDefault(MANAGED_BY, "") + ", " + INSTALLATION + "="
                + labels.getOrDefault(INSTALLATION, "") + ", " + JOB + "=" + labels.getOrDefault(JOB, "");
    }

    /** The label selector of this installation's objects. */
    public static String selector(String installation) {
        return MANAGED_BY + "=" + MANAGED_BY_VALUE + "," + INSTALLATION + "=" + installation;
    }
}
