package io.falcon.scheduler.core;

import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.JobSpec;
import io.falcon.events.executor.SupplyMode;
import java.time.Instant;
import java.util.Optional;

/**
 * A request whose every field has been checked.
 *
 * @param submittedAt when the submission was committed (the binlog's time of its INSERT; for a row first read by a
 *     snapshot, its created_at, never later than the read): queue order counts from it, not from anything the writer
 *     chose
 * @param priority the job's stated priority, higher first (the priority column when not NULL, else the spec's
 *     {@code priority}, else 0); records stored before priorities existed lack it and read as 0
 * @param createdAt the row's created_at as the writer set it: shown, and what tells a redelivery (the same row) from
 *     an id reused by another INSERT; records stored before it existed read their submittedAt
 * @param commitOrder where the INSERT sits in the binlog ({@link #commitOrderOf}), which orders submissions committed
 *     in the same millisecond (the binlog's times are whole seconds); 0 for snapshot rows and older records
 * @param retry what its spec says of running it again after the fleet ended an attempt ({@link RetryPolicy});
 *     records stored before retries existed read as {@link RetryPolicy#UNSTATED}
 */
public record ValidRequest(
        String id,
        String actor,
        String name,
        TpuType tpuType,
        TpuTopology topology,
        JobSpec spec,
        Optional<SupplyMode> supplyMode,
        Optional<Long> timeoutSeconds,
        Instant submittedAt,
        int priority,
        Instant createdAt,
        long commitOrder,
        RetryPolicy retry) {

    public ValidRequest {
        if (createdAt == null) {
            createdAt = submittedAt;
        }
        retry = retry == null ? RetryPolicy.UNSTATED : retry;
    }

    /** A request whose spec says nothing of retries. */
    public ValidRequest(
            String id,
            String actor,
            String name,
            TpuType tpuType,
            TpuTopology topology,
            JobSpec spec,
            Optional<SupplyMode> supplyMode,
            Optional<Long> timeoutSeconds,
            Instant submittedAt,
            int priority,
            Instant createdAt,
            long commitOrder) {
        this(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                createdAt,
                commitOrder,
                RetryPolicy.UNSTATED);
    }

    /** A request whose row's created_at is its submission time, with no binlog position (tests, tools). */
    public ValidRequest(
            String id,
            String actor,
            String name,
            TpuType tpuType,
            TpuTopology topology,
            JobSpec spec,
            Optional<SupplyMode> supplyMode,
            Optional<Long> timeoutSeconds,
            Instant submittedAt,
            int priority) {
        this(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                submittedAt,
                0);
    }

    public ValidRequest withSpec(JobSpec newSpec) {
        return new ValidRequest(
                id,
                actor,
                name,
                tpuType,
                topology,
                newSpec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                priority,
                createdAt,
                commitOrder,
                retry);
    }

    public ValidRequest withPriority(int newPriority) {
        return new ValidRequest(
                id,
                actor,
                name,
                tpuType,
                topology,
                spec,
                supplyMode,
                timeoutSeconds,
                submittedAt,
                newPriority,
                createdAt,
                commitOrder,
                retry);
    }

    /**
     * A binlog position as one number that grows with it: the file's sequence number, then the byte position in the
     * file, then the row within the event (a multi-row INSERT). 0 when the file name carries no number.
     */
    public static long commitOrderOf(String binlogFile, long position, long rowInEvent) {
        int digits = binlogFile.length();
        while (digits > 0 && Character.isDigit(binlogFile.charAt(digits - 1))) {
            digits--;
        }
        String number = binlogFile.substring(digits);
        if (number.isEmpty() || number.length() > 6) {
            return 0;
        }
        long file = Long.parseLong(number);
        long pos = Math.min(Math.max(position, 0), (1L << 32) - 1);
        long row = Math.min(Math.max(rowInEvent, 0), (1L << 12) - 1);
        return (file << 44) | (pos << 12) | row;
    }

    /** VMs of the job's slice (pods of its Kubernetes Job): validation accepted the shape, so it has a slice. */
    public int vms() {
        return tpuType.slice(topology).map(io.falcon.events.TpuSlice::vms).orElse(topology.hosts());
    }
}
