package io.falcon.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Deterministic names of what Falcon creates for a job, so that a redelivered command finds what an earlier
 * delivery created. GKE node pool names allow at most 40 lowercase letters, digits and dashes.
 *
 * <p>A name is never the job id itself: it is a readable head of the id and 64 bits of SHA-256 over the
 * installation and the id. A tenant who sees another job's pool or Job name (it is in that job's row) cannot submit
 * an id that gets the same name, and two Falcon installations never name a job's objects alike. Ownership of what is
 * found under a name is still proved by labels ({@code FalconLabels}), never by the name.
 */
public final class ResourceNames {
    public static final String PREFIX = "falcon-";
    /** The installation name when none is configured ({@code falcon.installation}). */
    public static final String DEFAULT_INSTALLATION = "falcon";

    private static final int MAX_HEAD = 15;
    private static final int HASH_HEX = 16;

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

    /** The node pool of the job, in the given installation. */
    public static String nodePool(String installation, String jobId) {
        return PREFIX + shortId(installation, jobId);
    }

    /** The Kubernetes Job of the job, in the given installation. */
    public static String k8sJob(String installation, String jobId) {
        return PREFIX + shortId(installation, jobId);
    }

    /**
     * The node pool of the job's attempt after {@code retries} retries: the first attempt's is {@link #nodePool}, each
     * later one's another name of the same form, so that an attempt never meets the pool or Job of the one before
     * (still being deleted) under its own name.
     */
    public static String nodePool(String installation, String jobId, int retries) {
        return retries == 0 ? nodePool(installation, jobId) : PREFIX + shortId(installation, jobId + "\n#" + retries);
    }

    /** The Kubernetes Job of the job's attempt after {@code retries} retries (see {@link #nodePool(String, String, int)}). */
    public static String k8sJob(String installation, String jobId, int retries) {
        return retries == 0 ? k8sJob(installation, jobId) : PREFIX + shortId(installation, jobId + "\n#" + retries);
    }

    /** A readable head of the id (at most 15 DNS characters) and 64 bits of hash of the installation and the id. */
    static String shortId(String installation, String jobId) {
        String cleaned = jobId.toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9-]", "-")
                .replaceAll("-+", "-")
                .replaceAll("^-|-$", "");
        String head = cleaned.length() > MAX_HEAD ? cleaned.substring(0, MAX_HEAD) : cleaned;
        head = head.replaceAll("-$", "");
        String hash = sha256Hex(installation + "\n" + jobId).substring(0, HASH_HEX);
        return head.isEmpty() ? hash : head + "-" + hash;
    }

    /** What every actor key starts with (a Kubernetes service account of that name is an actor's). */
    public static final String ACTOR_PREFIX = "falcon-actor-";

    private static final int MAX_ACTOR_HEAD = 30;

    /**
     * The name of an actor on the edge clusters: {@code falcon-actor-<head>-<hash>}, a readable head of the actor (at
     * most 30 lowercase letters, digits and dashes) and 64 bits of SHA-256 over the exact actor, at most 60
     * characters, so a DNS-1123 label. The actor is whatever the upper components put in the row (any text): it
     * names the Kubernetes service account its jobs run as with {@code falcon.executor.job.identity=actor}, its folder
     * in the cluster's bucket ({@code actors/<key>/}) and is the prefix of the Secrets its jobs may reference ({@code
     * <key>.<name>}). The head never contains a '.', so {@code <key>.} is the prefix of one actor's Secrets only;
     * two actors share a key only by a 64-bit hash collision. Not tied to an installation: an actor's identity and
     * Secrets are the same whichever Falcon runs its jobs.
     */
    public static String actorKey(String actor) {
        String cleaned = actor.toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9-]", "-")
                .replaceAll("-+", "-")
                .replaceAll("^-|-$", "");
        String head = cleaned.length() > MAX_ACTOR_HEAD ? cleaned.substring(0, MAX_ACTOR_HEAD) : cleaned;
        head = head.replaceAll("-$", "");
        String hash = sha256Hex(actor).substring(0, HASH_HEX);
        return ACTOR_PREFIX + (head.isEmpty() ? "" : head + "-") + hash;
    }

    /**
     * The Kubernetes Secret a job of the actor gets when its spec references {@code name}: {@code <actor key>.<name>}.
     * Tenants name Secrets, Falcon decides whose: a job can reach only its own actor's Secrets.
     */
    public static String actorSecret(String actor, String name) {
        return actorKey(actor) + "." + name;
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
