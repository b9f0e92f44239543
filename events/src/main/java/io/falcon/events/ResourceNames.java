package io.falcon.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Deterministic names of what Falcon creates for a job, so that a redelivered command finds what an earlier
 * delivery created. GKE node pool names allow at most 40 lowercase letters, digits and dashes.
 */
public final class ResourceNames {
    public static final String PREFIX = "falcon-";
    private static final int MAX_SHORT_ID = 24;

    private ResourceNames() {}

    /**
     * A job id becomes part of gs://bucket/logs/JOB_ID/POD.log and of the pod's shell command: letters, digits, '.',
     * '_' and '-', not starting with '.', no ".." (no '/', no spaces, no quotes), at most 128 characters. The one
     * rule for the scheduler's intake check (InvalidSpec) and the executor's renderer, so that an id the first
     * accepts is never refused by the second.
     */
    private static final java.util.regex.Pattern USABLE_JOB_ID =
            java.util.regex.Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

    /** Whether {@code jobId} may name a job: see {@link #USABLE_JOB_ID}. */
    public static boolean isUsableJobId(String jobId) {
        return jobId != null && USABLE_JOB_ID.matcher(jobId).matches() && !jobId.contains("..");
    }

    public static String nodePool(String jobId) {
        return PREFIX + shortId(jobId);
    }

    public static String k8sJob(String jobId) {
        return PREFIX + shortId(jobId);
    }

    public static boolean isFalconNodePool(String name) {
        return name.startsWith(PREFIX);
    }

    /** The job id itself when it is already a short DNS label, else a readable prefix plus a hash. */
    static String shortId(String jobId) {
        String lower = jobId.toLowerCase(Locale.ROOT);
        String cleaned =
                lower.replaceAll("[^a-z0-9-]", "-").replaceAll("-+", "-").replaceAll("^-|-$", "");
        if (cleaned.equals(jobId) && !cleaned.isEmpty() && cleaned.length() <= MAX_SHORT_ID) {
            return cleaned;
        }
        String head = cleaned.length() > 14 ? cleaned.substring(0, 14) : cleaned;
        String hash = sha256Hex(jobId).substring(0, 8);
        return head.isEmpty() ? hash : head.replaceAll("-$", "") + "-" + hash;
    }

    private static String sha256Hex(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present", e);
        }
    }
}
