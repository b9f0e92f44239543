package io.falcon.scheduler.core;

import io.falcon.events.ClusterStatus;
import io.falcon.events.executor.SupplyMode;
import io.falcon.events.status.StartEstimate;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The human-readable Message texts, worded as in the seed's Status/Reason/Message table. */
public final class Messages {
    private static final int NAMES_SHOWN = 5;

    private Messages() {}

    /**
     * "队列位置 #3,前面有 2 个任务 (user-a: profiling-v7x, user-b: benchmark-v7x)", saying of the jobs ahead what
     * {@code shown} allows to the owner of a job of {@code actor}: with OWN, "(alice: a, 另有 2 个其他用户的任务)"; with
     * COUNT, no list.
     */
    public static String waiting(int position, List<WaitQueue.Entry> ahead, String actor, WhoIsAhead shown) {
        String head = "队列位置 #" + position + ",前面有 " + ahead.size() + " 个任务";
        if (ahead.isEmpty() || shown == WhoIsAhead.COUNT) {
            return head;
        }
        List<WaitQueue.Entry> named = shown == WhoIsAhead.NAMES
                ? ahead
                : ahead.stream().filter(e -> e.actor().equals(actor)).toList();
        long others = ahead.size() - named.size();
        String names = named.stream()
                .limit(NAMES_SHOWN)
                .map(e -> e.actor() + ": " + e.name())
                .collect(Collectors.joining(", "));
        String more = named.size() > NAMES_SHOWN ? ", ..." : "";
        String rest = others == 0 ? "" : (names.isEmpty() ? "" : ", ") + "另有 " + others + " 个其他用户的任务";
        return head + " (" + names + more + rest + ")";
    }

    /**
     * ",预计 14:20-14:35 开始": the start-time estimate appended to a Waiting message, in clock times of the zone,
     * the earliest rounded down and the latest up to the minute, with the date when not today.
     */
    public static String estimate(Optional<StartEstimate> estimate, Instant now, ZoneId zone) {
        if (estimate.isEmpty()) {
            return "";
        }
        ZonedDateTime today = now.atZone(zone);
        ZonedDateTime earliest = estimate.get().earliest().atZone(zone).truncatedTo(ChronoUnit.MINUTES);
        ZonedDateTime latest = estimate.get().latest().atZone(zone);
        ZonedDateTime latestUp = latest.truncatedTo(ChronoUnit.MINUTES);
        if (latestUp.isBefore(latest) || !latestUp.isAfter(earliest)) {
            latestUp = latestUp.plusMinutes(1);
        }
        return ",预计 " + clock(earliest, today) + "-" + clock(latestUp, today) + " 开始";
    }

    private static String clock(ZonedDateTime at, ZonedDateTime today) {
        String time = String.format("%02d:%02d", at.getHour(), at.getMinute());
        return at.toLocalDate().equals(today.toLocalDate())
                ? time
                : String.format("%02d-%02d ", at.getMonthValue(), at.getDayOfMonth()) + time;
    }

    /** A position deep in the queue: who is ahead is too long a list to be useful. */
    public static String waitingCount(int position) {
        return "队列位置 #" + position + ",前面有 " + (position - 1) + " 个任务";
    }

    public static String waitingBeyond(int aheadAtLeast) {
        return "队列位置 #" + (aheadAtLeast + 1) + " 之后,前面至少有 " + aheadAtLeast + " 个任务";
    }

    public static String noCluster(String tpuType, String why) {
        return "no eligible cluster for tpu_type " + tpuType + ": " + why + "; waiting for one to become active";
    }

    public static String provisioning(SupplyMode mode) {
        return "正在创建 node pool (supply: " + mode.wireName() + ")...";
    }

    /**
     * A snapshot of the jobs table showed a row Falcon had written, of a job it no longer knows: it ended more than
     * the retention ago and its final status never reached the row. It is not run again.
     */
    public static String forgottenJobSnapshotted(java.time.Duration retention) {
        return "Falcon ran this job before (its row carries Falcon's status) and forgot it " + retention.toHours()
                + "h after it ended, before its final status reached this row; it is not run again: submit it anew"
                + " under a new id to run it";
    }

    /** A job's Kubernetes Job is gone though nothing of Falcon's deleted it (an operator's kubectl delete, say). */
    public static String k8sJobDisappeared(String k8sJob, String clusterId) {
        return "the Kubernetes Job " + k8sJob + " was deleted outside Falcon before Falcon saw it finish (the Job"
                + " inventory of cluster " + clusterId + " no longer lists it); its pods are gone with it";
    }

    /** The GKE cluster the job's node pool and Kubernetes Job were in is gone (deleted, or deleted and re-created). */
    public static String clusterGone(String clusterResource, String detail) {
        return "GKE cluster " + clusterResource + " no longer exists (deleted, or deleted and created again): this"
                + " job's node pool and Kubernetes Job there are gone with it"
                + (detail.isBlank() ? "" : " (" + detail + ")");
    }

    public static String dispatching() {
        return "Node pool 就绪,正在提交 K8s Job...";
    }

    public static String reusedPool(String pool) {
        return "Node pool 就绪,正在提交 K8s Job... (reusing node pool " + pool + ")";
    }

    public static String submitted(String k8sJobName, int expectedPods) {
        return "K8s Job " + k8sJobName + " 已提交,等待 Pod 运行 (0/" + expectedPods + " active)...";
    }

    public static String running(int active, int expected) {
        return "Pod 运行中 (" + active + "/" + expected + " active)";
    }

    private static final String CLUSTER_NOTE = "; cluster ";

    /**
     * A running job's Message while its cluster is not active: it keeps running (Falcon does not stop running jobs
     * for maintenance), and no new job starts there.
     */
    public static String runningOnInactiveCluster(String running, String cluster, ClusterStatus status) {
        return withoutClusterNote(running) + CLUSTER_NOTE + cluster + " is "
                + switch (status) {
                    case MAINTENANCE -> "in maintenance";
                    case UNKNOWN -> "in a status Falcon does not know";
                    default -> status.wireName();
                }
                + ": this job keeps running, no new jobs start there";
    }

    public static String withoutClusterNote(String message) {
        int note = message.indexOf(CLUSTER_NOTE);
        return note < 0 ? message : message.substring(0, note);
    }

    /** "reservation_remaining_slices=1 reservation_needed_slices=2,等待 reservation 容量释放...". */
    public static String clusterBusy(int remainingSlices, int neededSlices) {
        return "reservation_remaining_slices=" + remainingSlices + " reservation_needed_slices=" + neededSlices
                + ",等待 reservation 容量释放...";
    }

    /**
     * A job waiting for its pool's nodes whose pool is gone and being created again, with the reservation short of
     * it: still WaitingForNode (the Job is submitted), saying what it waits for now (ClusterBusy's figures).
     */
    public static String waitingForPoolAgain(String pool, int remainingSlices, int neededSlices) {
        return "node pool " + pool + " is being created again: " + clusterBusy(remainingSlices, neededSlices);
    }

    /** "node pool falcon-job-xxxx control-plane RUNNING but 0/1 expected node(s) registered (Ready=0)...". */
    public static String waitingForNode(String pool, int registered, int ready, int expected) {
        return "node pool " + pool + " control-plane RUNNING but " + registered + "/" + expected
                + " expected node(s) registered (Ready=" + ready + ")...";
    }

    /**
     * Pending/Retrying: "attempt 2 of 3 at 10:42 (once the last attempt's Kubernetes Job is gone): the fleet ended
     * attempt 1: Pod disrupted: ...".
     */
    public static String retrying(int attempt, int attempts, String ended, Instant at, ZoneId zone) {
        return "attempt " + attempt + " of " + attempts + " from "
                + java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss")
                        .withZone(zone)
                        .format(at)
                + " (once the last attempt's Kubernetes Job is gone): the fleet ended attempt " + (attempt - 1) + ": "
                + ended;
    }

    /** Appended to every later Message of a job that was retried: which attempt this is, and how the others ended. */
    public static String withAttempts(String message, int retries, String attempts) {
        String note = "[attempt " + (retries + 1) + "; earlier: " + attempts + "]";
        return message.isEmpty() ? note : message.contains(note) ? message : message + " " + note;
    }

    public static String aborting() {
        return "正在中止,等待 K8s Job 删除和 node pool 清理...";
    }

    /** "node pool 创建超时 (10m): GKE API timeout" (seed error table), with the timeout that fired. */
    public static String nodePoolTimeout(Duration timeout, String detail) {
        return "node pool 创建超时 (" + duration(timeout) + "): " + detail;
    }

    public static String nodePoolFailed(String detail) {
        return "node pool 创建失败: " + detail;
    }

    public static String jobSubmitFailed(String detail) {
        return "K8s Job 提交失败: " + detail;
    }

    /** A retryable submit error: the job stays Dispatching and the scheduler asks again. */
    public static String submitRetrying(String detail) {
        return "Node pool 就绪,正在提交 K8s Job... (上次提交失败,重试中: " + detail + ")";
    }

    /** Pods of a created Job that never all ran within the dispatch deadline. */
    public static String podsNeverRan(String k8sJobName, Duration deadline) {
        return "Pod 未能在 " + duration(deadline) + " 内全部运行 (K8s Job " + k8sJobName + " 已提交),已取消 Job";
    }

    /** The Kubernetes Job was never confirmed created within the submit deadline. */
    public static String submitGaveUp(Duration deadline, String lastError) {
        return jobSubmitFailed(
                "no Kubernetes Job after " + duration(deadline) + " of retries (last error: " + lastError + ")");
    }

    /** An active job whose cluster row was deleted: its resources there are deleted. */
    public static String clusterRemoved(String cluster, String phase) {
        return "cluster " + cluster + " was removed from the clusters table while this job was " + phase
                + "; its Kubernetes Job and node pool there are deleted";
    }

    /** An active job whose cluster row now names another GKE cluster: its resources at the old one are deleted. */
    public static String clusterMoved(String clusterId, String from, String to, String phase) {
        return "cluster " + clusterId + " moved from " + from + " to " + to + " while this job was " + phase
                + "; its Kubernetes Job and node pool at the old location are deleted";
    }

    /** Appended to a finished job's Message while its pool's deletion keeps failing (seed error table). */
    public static String poolDeleteFailing(String pool, String error) {
        return "(node pool " + pool + " 删除失败,重试中: " + error + ")";
    }

    public static String timeout(long seconds) {
        return "任务超时 (" + seconds + "s),已取消 Job";
    }

    /** A job short of reservation capacity whose cluster's default_reservation was cleared meanwhile. */
    static String reservationCleared(String clusterId) {
        return "cluster " + clusterId + " names no default_reservation now: supply_mode=reservation waits for one to be"
                + " set (or abort it)";
    }

    public static String aborted() {
        return "用户中止";
    }

    /** The message with the note appended once (a repeated note is not appended again). */
    static String withNote(String message, String note) {
        if (message.endsWith(note)) {
            return message;
        }
        return message.isEmpty() ? note : message + " " + note;
    }

    /** An abort written over the row of a job that had ended: the job keeps its end. */
    static String abortAfterEnd(io.falcon.events.status.Status ended) {
        return "(abort requested after the job had ended " + ended + ": it stays " + ended + ")";
    }

    /** An abort of a job Falcon has no record of: an INSERT already Aborting, or a job forgotten long after it ended. */
    static String abortOfUnknownJob(String jobId) {
        return "用户中止: Falcon has no record of job " + jobId + " (inserted already Aborting, or ended longer ago than"
                + " the retention): nothing was started for it";
    }

    /** A status an upper component wrote that Falcon never writes. */
    static String statusRewritten(String written) {
        return "(status was set to '" + written + "' by a writer; Falcon keeps the job's own status: abort with"
                + " Aborting, submit again with a new id)";
    }

    /** The same, for a job Falcon has no record of: the row was no submission. */
    static String statusOfUnknownJob(String written) {
        return "status: set to '" + written + "' on a row Falcon has no record of; an UPDATE is no submission (insert a"
                + " new row to submit)";
    }

    /** A new row under an id a job already has. */
    static String idReused(java.time.Instant firstSubmitted) {
        return "(a new row was inserted with this id, which a job submitted at " + firstSubmitted + " already has:"
                + " it is not a new job; submit it with a new id)";
    }

    static String priorityChanged(int priority) {
        return "(priority changed to " + priority + ")";
    }

    static String priorityRefused(String value, io.falcon.events.PriorityLimits.Range allowed, String actor) {
        return "(priority change to " + value + " refused: the column must be a whole number between " + allowed.min()
                + " and " + allowed.max() + " for actor '" + actor + "'; the job keeps its priority)";
    }

    static String tooManyJobsOfActor(String actor, int live) {
        return "refused: actor '" + actor + "' already has " + live + " jobs submitted and not ended, as many as"
                + " falcon.scheduler.max-live-jobs-per-actor allows; submit it again (with a new id) once some have"
                + " ended";
    }

    static String tooManyJobs(int live) {
        return "refused: Falcon already holds " + live + " jobs submitted and not ended, as many as"
                + " falcon.scheduler.max-live-jobs allows; submit it again (with a new id) once some have ended";
    }

    static String priorityTooLate(int priority) {
        return "(priority change to " + priority + " not applied: the job has started, and a priority only decides"
                + " who takes a queue's next free slot)";
    }

    /** 90s, 10m, 2h, 1h30m: how durations appear in messages. */
    static String duration(Duration d) {
        long s = d.toSeconds();
        if (s % 3600 == 0 && s > 0) {
            return s / 3600 + "h";
        }
        if (s >= 3600) {
            return s / 3600 + "h" + (s % 3600) / 60 + "m";
        }
        return s % 60 == 0 && s > 0 ? s / 60 + "m" : s + "s";
    }
}
