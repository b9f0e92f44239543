package io.falcon.faults.topology;

import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.core.FaultIntake;
import io.falcon.faults.core.JobWindow;
import io.falcon.faults.core.StateBounds;
import io.falcon.faults.core.Verdicts;
import io.falcon.ops.FalconMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job window stage. Faults of a job are held per (cluster, job id) in a changelogged store (a job id is only
 * unique within its cluster); a wall-clock punctuator decides every job whose first fault's window plus grace has
 * passed in event time. Event time is the highest receive time seen, advanced by the wall-clock time since the
 * last record, so an idle partition still decides while a partition catching up on a backlog does not decide
 * early; it never moves backwards (a late record keeps the idle advance already made). A fault later than the
 * allowed lateness behind it skips the window and is counted directly. Hardware faults go on to the counting
 * processor of the same task (the input is keyed by cluster).
 */
final class JobWindowProcessor implements Processor<String, byte[], String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(JobWindowProcessor.class);

    private final FaultTopologyOptions options;
    private ProcessorContext<String, Object> context;
    private CommitTimeStore<byte[]> pending;
    private final HeldFaults held = new HeldFaults();
    /** The durable copy of {@link #rounds}, written at the commit. */
    private CommitTimeStore<byte[]> decidedRounds;
    /** Decided rounds per (cluster, job, code), kept while a late fault of them may still arrive. */
    private final DecidedRounds rounds = new DecidedRounds();
    /** The page new faults are added to (marked on every add, written by the store at the commit). */
    private HeldPage page;

    private long nextPage;
    private long arrivals;
    private final CurrentPolicy currentPolicy;
    private long streamTimeMs;
    private long lastRecordWallMs;
    /** Event time is only known once a record (or a restored held fault) has shown a receive time. */
    private boolean eventTimeKnown;

    private final FalconMetrics metrics;

    JobWindowProcessor(FaultTopologyOptions options, CurrentPolicy currentPolicy, FalconMetrics metrics) {
        this.currentPolicy = currentPolicy;
        this.metrics = metrics;
        this.options = options;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        pending = CommitTimeStore.of(context.getStateStore(FaultTopology.PENDING_STORE));
        // A re-initialised task (after a rebalance or an aborted transaction) starts from the store again.
        held.clear();
        page = null;
        nextPage = 0;
        arrivals = 0;
        streamTimeMs = 0;
        try (KeyValueIterator<String, byte[]> it = pending.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                // a key of the earlier layout (one fault per key) is restored as a page of one under its own key
                HeldPage restoredPage = new HeldPage(kv.key);
                nextPage = Math.max(nextPage, HeldPage.number(kv.key) + 1);
                for (DeviceFault fault : HeldPage.decode(kv.value)) {
                    int slot = restoredPage.add(BinaryCodec.encode(fault));
                    // the (cluster, job) comes from the value
                    held.add(
                            StoreKeys.job(fault.clusterId(), fault.jobId().orElse("")),
                            new HeldFaults.Held(arrivals++, fault, restoredPage, slot));
                    streamTimeMs = Math.max(streamTimeMs, fault.receiveTimeMs());
                }
            }
        }
        decidedRounds = CommitTimeStore.of(context.getStateStore(FaultTopology.ROUNDS_STORE));
        rounds.clear();
        List<String> jobKeys = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = decidedRounds.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                if (StoreKeys.isJobKey(kv.key)) {
                    // the earlier layout, every code of a job in one value: split by code, rewritten at the commit
                    jobKeys.add(kv.key);
                    Map<String, List<JobWindow.Round>> byCode = byCode(BinaryCodec.decodeRounds(kv.value));
                    byCode.forEach((code, codeRounds) -> {
                        String key = StoreKeys.jobCode(kv.key, code);
                        List<JobWindow.Round> merged = new ArrayList<>(rounds.of(key));
                        merged.addAll(codeRounds);
                        rounds.put(key, merged);
                        markRounds(key);
                    });
                } else {
                    List<JobWindow.Round> merged = new ArrayList<>(rounds.of(kv.key));
                    merged.addAll(BinaryCodec.decodeRounds(kv.value));
                    rounds.put(kv.key, merged);
                }
            }
        }
        for (String jobKey : jobKeys) {
            decidedRounds.writeAtCommit(jobKey, Optional::empty);
        }
        int restored = held.size();
        lastRecordWallMs = context.currentSystemTimeMs();
        eventTimeKnown = restored > 0;
        if (restored > 0 || rounds.keys() > 0) {
            LOG.info(
                    "job window task {} restored {} pending faults and the decided rounds of {} job codes, event"
                            + " time {}",
                    context.taskId(),
                    restored,
                    rounds.keys(),
                    streamTimeMs);
        }
        context.schedule(options.decideInterval(), PunctuationType.WALL_CLOCK_TIME, this::decide);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        // A record whose processing throws is dead-lettered with the reason; the stream goes on.
        FaultTopology.DEAD_LETTERS.guard(record, context, metrics::deadLetter, () -> processSafely(record), () -> {});
    }

    private void processSafely(Record<String, byte[]> record) {
        Optional<DeviceFault> fault =
                FaultTopology.DEAD_LETTERS.decode(Topics.DEVICE_FAULTS.valueSerde(), record, context);
        if (fault.isEmpty()) {
            return;
        }
        Optional<String> problem = FaultIntake.problem(fault.get(), context.currentSystemTimeMs());
        if (problem.isPresent()) {
            FaultTopology.DEAD_LETTERS.send(record, context, "invalid device fault: " + problem.get(), null);
            metrics.deadLetter(Topics.DEVICE_FAULTS.name(), "validate");
            return;
        }
        accept(fault.get(), record);
    }

    private void accept(DeviceFault fault, Record<String, byte[]> record) {
        long wallMs = context.currentSystemTimeMs();
        if (fault.jobId().isEmpty()) {
            if (options.countJoblessFaults()) {
                toCounting(fault, wallMs);
            } else {
                forwardVerdict(Verdicts.about(
                        fault,
                        Outcome.NOT_COUNTED_NO_JOB,
                        policy(),
                        "faults without a job id are not counted (falcon.faults.count-jobless-faults=false)",
                        wallMs));
            }
            return;
        }
        String jobId = fault.jobId().get();
        long eventTimeMs = eventTimeKnown ? eventTimeAt(wallMs) : fault.receiveTimeMs();
        // Monotone: the idle advance made so far is kept, whatever the receive time of this record.
        streamTimeMs = Math.max(eventTimeMs, fault.receiveTimeMs());
        lastRecordWallMs = wallMs;
        eventTimeKnown = true;
        if (JobWindow.isTooLate(
                fault.receiveTimeMs(), eventTimeMs, options.allowedLateness().toMillis())) {
            forwardVerdict(Verdicts.about(
                    fault,
                    Outcome.LATE_COUNTED_DIRECTLY,
                    policy(),
                    "arrived "
                            + Duration.ofMillis(eventTimeMs - fault.receiveTimeMs())
                                    .toSeconds()
                            + "s behind the job window's event time, more than the allowed lateness ("
                            + options.allowedLateness().toSeconds()
                            + "s, falcon.faults.allowed-lateness): counted directly, without the job window",
                    wallMs));
            toCounting(fault, wallMs);
            return;
        }
        String jobKey = StoreKeys.job(fault.clusterId(), jobId);
        // only the rounds of the fault's code can judge it: a lookup, however many codes the job has
        String codeKey = StoreKeys.jobCode(jobKey, fault.faultCode());
        List<JobWindow.Round> decided = rounds.of(codeKey);
        if (!decided.isEmpty() && judgedByDecidedRounds(codeKey, fault, decided, wallMs, record)) {
            return;
        }
        if (page == null || page.full()) {
            page = new HeldPage(HeldPage.key(nextPage++));
        }
        int slot = page.add(BinaryCodec.encode(fault));
        pending.writeAtCommit(page.key(), page.stored());
        held.add(jobKey, new HeldFaults.Held(arrivals++, fault, page, slot));
        LOG.debug(
                "job={} cluster={} node={} device={} code={} held in the job window",
                jobId,
                fault.clusterId(),
                fault.nodeName(),
                fault.deviceName(),
                fault.faultCode());
    }

    /**
     * A fault that arrived after a decided round of its job could have held it (later than the grace) is judged as
     * part of that round, as the RFC's algorithm judges it with every fault present: a late peer of a
     * software-fault storm is a software fault, not a fault counted on its own. False: held like any fault.
     */
    private boolean judgedByDecidedRounds(
            String codeKey,
            DeviceFault fault,
            List<JobWindow.Round> decided,
            long wallMs,
            Record<String, byte[]> record) {
        long windowMs = options.jobWindow().toMillis();
        Optional<JobWindow.Late> late = JobWindow.judgeLate(fault, decided, windowMs);
        if (late.isEmpty()) {
            return false;
        }
        List<JobWindow.Round> kept = JobWindow.stillJudging(
                late.get().rounds(), windowMs, options.allowedLateness().toMillis(), streamTimeMs);
        if (kept.size() > StateBounds.MAX_ROUNDS_PER_JOB_CODE) {
            // it would open one round more than a job's code keeps (StateBounds): refused, the rounds unchanged
            FaultTopology.DEAD_LETTERS.send(
                    record,
                    context,
                    "device fault refused: job " + fault.jobId().orElse("") + " of cluster " + fault.clusterId()
                            + " already keeps " + (kept.size() - 1) + " decided rounds of code " + fault.faultCode()
                            + ", the most fault-streams keeps per job and code ("
                            + StateBounds.MAX_ROUNDS_PER_JOB_CODE + ")",
                    null);
            metrics.deadLetter(Topics.DEVICE_FAULTS.name(), "bound");
            return true;
        }
        rounds.put(codeKey, kept);
        markRounds(codeKey);
        if (late.get().outcome() instanceof JobWindow.Software s) {
            forwardVerdict(Verdicts.about(
                    fault,
                    Outcome.SOFTWARE_FAULT,
                    policy(),
                    s.listedPeers(),
                    s.peerCount(),
                    List.of(),
                    "code " + fault.faultCode() + " also on " + s.peerCount() + " other device(s) of job "
                            + fault.jobId().orElse("") + " within "
                            + options.jobWindow().toSeconds()
                            + "s, in a window decided before this fault arrived: software fault, not counted",
                    wallMs));
            LOG.info(
                    "job={} cluster={} node={} device={} code={} arrived after its window was decided: software"
                            + " fault with {} (not counted)",
                    fault.jobId().orElse(""),
                    fault.clusterId(),
                    fault.nodeName(),
                    fault.deviceName(),
                    fault.faultCode(),
                    s.listedPeers());
        } else {
            // a late fault of a counted round on its own device: counted with the round, as it would have been
            toCounting(fault, wallMs);
        }
        return true;
    }

    /**
     * Replaces the decided rounds of a job's code after a decision (those that can no longer judge a fault dropped,
     * and beyond {@link StateBounds#MAX_ROUNDS_PER_JOB_CODE} the oldest, which would expire first); written at the
     * commit.
     */
    private void keepRounds(String codeKey, List<JobWindow.Round> codeRounds, long nowMs) {
        List<JobWindow.Round> kept = JobWindow.stillJudging(
                codeRounds,
                options.jobWindow().toMillis(),
                options.allowedLateness().toMillis(),
                nowMs);
        if (kept.size() > StateBounds.MAX_ROUNDS_PER_JOB_CODE) {
            int forgotten = kept.size() - StateBounds.MAX_ROUNDS_PER_JOB_CODE;
            kept = DecidedRounds.withoutOldest(kept, forgotten);
            LOG.warn(
                    "job code {}: {} decided rounds forgotten before they expired, to keep {} (the most per job and"
                            + " code): a late fault within them is held and decided on its own",
                    codeKey.replace(StoreKeys.SEP, '/'),
                    forgotten,
                    StateBounds.MAX_ROUNDS_PER_JOB_CODE);
        }
        rounds.put(codeKey, kept);
        markRounds(codeKey);
    }

    /** Writes the rounds of a job's code as they are at the commit (deleted when none is left). */
    private void markRounds(String codeKey) {
        decidedRounds.writeAtCommit(codeKey, () -> {
            List<JobWindow.Round> current = rounds.of(codeKey);
            return current.isEmpty() ? Optional.empty() : Optional.of(BinaryCodec.encodeRounds(current));
        });
    }

    /** The rounds by code, each code's in the order given. */
    private static Map<String, List<JobWindow.Round>> byCode(List<JobWindow.Round> decided) {
        Map<String, List<JobWindow.Round>> byCode = new LinkedHashMap<>();
        for (JobWindow.Round round : decided) {
            byCode.computeIfAbsent(round.code(), c -> new ArrayList<>()).add(round);
        }
        return byCode;
    }

    /** Event time as seen by this task: the newest receive time, plus wall time spent idle since. */
    private long eventTimeAt(long wallMs) {
        return streamTimeMs + Math.max(0, wallMs - lastRecordWallMs);
    }

    private void decide(long wallMs) {
        long now = eventTimeAt(wallMs);
        long windowMs = options.jobWindow().toMillis();
        long graceMs = options.grace().toMillis();
        // a window is due when event time is past first + window + grace
        for (String jobKey : held.jobsWithFirstUpTo(now - windowMs - graceMs - 1)) {
            decideJob(jobKey, now, windowMs, graceMs, wallMs);
        }
        // an emptied page is deleted at the commit; new faults go to a new one
        if (page != null && page.held() == 0) {
            page = null;
        }
        // decided rounds no fault admitted from now on can fall into (or reach) are forgotten
        long allowedLatenessMs = options.allowedLateness().toMillis();
        for (String codeKey : rounds.keysWithNewestBefore(now - allowedLatenessMs - windowMs)) {
            rounds.put(codeKey, List.of());
            decidedRounds.writeAtCommit(codeKey, Optional::empty);
        }
    }

    private void decideJob(String jobKey, long now, long windowMs, long graceMs, long wallMs) {
        JobWindow.Decision decision = JobWindow.decideDue(held.faults(jobKey), windowMs, graceMs, now);
        // each decided code's rounds: the job's other codes are not read or rewritten
        for (Map.Entry<String, List<JobWindow.Round>> code :
                byCode(decision.rounds()).entrySet()) {
            String codeKey = StoreKeys.jobCode(jobKey, code.getKey());
            List<JobWindow.Round> codeRounds = new ArrayList<>(rounds.of(codeKey));
            codeRounds.addAll(code.getValue());
            keepRounds(codeKey, codeRounds, now);
        }
        for (HeldFaults.Held decided : held.keep(jobKey, decision.remaining())) {
            decided.page().release(decided.slot());
            // rewritten at the commit with the faults it still holds, or deleted (the store writes a page once)
            pending.writeAtCommit(decided.page().key(), decided.page().stored());
        }
        IsolationPolicy policy = policy();
        String jobId = decision.decided().isEmpty()
                ? jobKey
                : decision.decided().get(0).fault().jobId().orElse(jobKey);
        int software = 0;
        // the faults of one software group share code and peer count, so their explanation is built once
        String explainedCode = null;
        int explainedPeers = -1;
        String explanation = "";
        for (JobWindow.Outcome outcome : decision.decided()) {
            if (outcome instanceof JobWindow.Software s) {
                software++;
                if (s.peerCount() != explainedPeers || !s.fault().faultCode().equals(explainedCode)) {
                    explainedCode = s.fault().faultCode();
                    explainedPeers = s.peerCount();
                    explanation = "code " + explainedCode + " also on " + explainedPeers
                            + " other device(s) of job " + jobId + " within "
                            + options.jobWindow().toSeconds() + "s: software fault, not counted";
                }
                forwardVerdict(Verdicts.about(
                        s.fault(),
                        Outcome.SOFTWARE_FAULT,
                        policy,
                        s.listedPeers(),
                        s.peerCount(),
                        List.of(),
                        explanation,
                        wallMs));
            } else {
                toCounting(outcome.fault(), wallMs);
            }
        }
        if (software > 0) {
            LOG.info("job={} {} faults classified as software faults (not counted)", jobId, software);
        }
    }

    private void toCounting(DeviceFault fault, long wallMs) {
        context.forward(new Record<>(fault.clusterId(), (Object) fault, wallMs), FaultTopology.COUNTING);
    }

    private void forwardVerdict(io.falcon.events.fault.FaultVerdict verdict) {
        metrics.faultVerdict(verdict.outcome().name(), verdict.clusterId());
        context.forward(
                new Record<>(
                        NodeIsolation.key(verdict.clusterId(), verdict.nodeName()),
                        (Object) verdict,
                        verdict.meta().occurredAt().toEpochMilli()),
                FaultTopology.VERDICT_SINK);
    }

    private IsolationPolicy policy() {
        return currentPolicy.get();
    }
}
