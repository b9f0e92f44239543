package io.falcon.scheduler.core;

import io.falcon.events.decision.Decision;
import io.falcon.events.fault.FaultVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Issue 18, the fault story in the job's own status: when fault-streams decides about a fault of a job's devices
 * (a software fault, a device isolated or held by the isolation budget), the job's Message says so from then on,
 * so its owner learns why it failed without reading another topic. A job that already ended (the fault killed it
 * and the verdict came after) has its final Message amended, for as long as it is retained.
 */
final class FaultNotes {
    /** A verdict about a job that ended longer ago than this is not noted any more (a replay of old verdicts). */
    static final Duration AFTER_END = Duration.ofHours(1);

    private final SchedulerState state;

    FaultNotes(SchedulerState state) {
        this.state = state;
    }

    /** The verdicts a job's owner should hear of. */
    static boolean worthNoting(FaultVerdict verdict) {
        return verdict.jobId().isPresent()
                && switch (verdict.outcome()) {
                    case SOFTWARE_FAULT, ISOLATED, HELD_BY_BUDGET -> true;
                    default -> false;
                };
    }

    /** Its Kubernetes Job may exist: dispatching, running, or being aborted or cancelled. */
    private static boolean podsMayRun(ScheduledJob job) {
        return switch (job.phase()) {
            case DISPATCHING, RUNNING, CANCELLING, ABORTING -> true;
            default -> false;
        };
    }

    /** One sentence for the job's Message. */
    static String sentence(FaultVerdict v) {
        String where = "fault " + v.faultCode() + " on " + v.nodeName() + "/" + v.deviceName();
        return switch (v.outcome()) {
            case SOFTWARE_FAULT ->
                where + ": software fault (the same code on "
                        + Math.max(1, v.evidence().peerDeviceCount())
                        + " device(s) of this job; no device isolated)";
            case ISOLATED -> where + ": hardware fault, the device is isolated (clusterd-manual-info-cm)";
            case HELD_BY_BUDGET ->
                where + ": hardware fault; the device would be isolated but the cluster's"
                        + " isolation budget is used up";
            default -> where + ": " + v.outcome();
        };
    }

    /**
     * The note after this verdict, or empty if it does not change it: a hardware verdict replaces a software one
     * (the likelier cause of a failure); a software verdict is noted once per fault code, and never replaces a
     * hardware one. A storm of one code on every device thus changes the note once.
     */
    static Optional<String> merge(Optional<String> current, FaultVerdict v) {
        String next = sentence(v);
        boolean hardware = v.outcome() != FaultVerdict.Outcome.SOFTWARE_FAULT;
        if (current.isEmpty()) {
            return Optional.of(next);
        }
        String now = current.get();
        boolean currentIsHardware = !now.contains(": software fault");
        if (!hardware) {
            boolean sameCode = now.startsWith("fault " + v.faultCode() + " on ");
            return currentIsHardware || sameCode ? Optional.empty() : Optional.of(next);
        }
        return now.equals(next) ? Optional.empty() : Optional.of(next);
    }

    /** The Message with the note in place of an older one. */
    static String withNote(String message, Optional<String> oldNote, String note) {
        String base = oldNote.filter(o -> message.endsWith("; " + o))
                .map(o -> message.substring(0, message.length() - o.length() - 2))
                .orElse(message);
        return base.isEmpty() ? note : base + "; " + note;
    }

    void noted(FaultVerdict verdict, Instant now, Decisions out) {
        if (!worthNoting(verdict)) {
            return;
        }
        String jobId = verdict.jobId().orElseThrow();
        ScheduledJob live = state.jobs.get(jobId);
        if (live != null) {
            if (live.clusterId().filter(verdict.clusterId()::equals).isEmpty() || !podsMayRun(live)) {
                // Not where this job runs (another job's id, a stale verdict), or its pods cannot have run yet: a
                // note on a waiting job would also make every position update differ from its Message.
                return;
            }
            merge(live.faultNote(), verdict).ifPresent(note -> {
                String message = withNote(live.message(), live.faultNote(), note);
                ScheduledJob noted = live.withFaultNote(note);
                state.publish(noted, noted.status(), noted.reason(), message, now, out);
                out.record(decision(noted, verdict, note, now));
            });
            return;
        }
        state.retired
                .find(jobId, now, state.settings.terminalRetention())
                .filter(done -> RetiredJobs.endedAt(done).plus(AFTER_END).isAfter(now))
                .filter(done ->
                        done.clusterId().filter(verdict.clusterId()::equals).isPresent())
                .ifPresent(done -> merge(done.faultNote(), verdict).ifPresent(note -> {
                    ScheduledJob amended = done.withFaultNote(note)
                            .withStatus(done.status(), done.reason(), withNote(done.message(), done.faultNote(), note));
                    state.retired.put(amended);
                    out.publish(SchedulerState.endStatusOf(amended, now));
                    out.record(decision(amended, verdict, note, now));
                }));
    }

    private static Decision decision(ScheduledJob job, FaultVerdict v, String note, Instant now) {
        return Ledger.faultNoted(
                job,
                note + (job.phase() == Phase.DONE ? " (noted after the job ended " + job.status() + ")" : ""),
                v.clusterId() + "/" + v.nodeName() + "/" + v.deviceName() + "/" + v.faultCode() + " " + v.outcome(),
                now);
    }
}
