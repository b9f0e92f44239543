package io.falcon.scheduler.topology;

import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.ops.FalconMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Issue 18: fault-streams' verdicts about a job's devices reach the scheduler task that owns the job. Verdicts are
 * keyed by cluster/node and the scheduler's input by tpu_type, and no task knows every cluster's type, so a verdict
 * worth telling the job's owner is multicast to every partition of falcon.scheduler.input as {@link
 * SchedulerInput.FaultNoted}; the task that knows the job notes it, the others find no such job. A storm of the same
 * code on every device of a job is forwarded once per (job, outcome, code) within {@link #REPEAT_WINDOW_MS}: the
 * scheduler would change nothing for the rest (see FaultNotes), and this spares it thousands of no-ops. The memory of
 * what was forwarded is only an optimisation: after a restart a verdict may be forwarded again, which is harmless.
 */
final class FaultVerdictRouter implements Processor<String, byte[], String, Object> {
    static final long REPEAT_WINDOW_MS = 10 * 60_000;
    private static final int REMEMBERED = 100_000;

    private final FalconMetrics metrics;
    private ProcessorContext<String, Object> context;
    private final Map<String, Long> forwarded = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED;
        }
    };

    FaultVerdictRouter(FalconMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        SchedulerTopology.DEAD_LETTERS.guard(
                record,
                context,
                metrics::deadLetter,
                () -> SchedulerTopology.DEAD_LETTERS
                        .decode(Topics.FAULT_VERDICTS.valueSerde(), record, context, metrics::deadLetter)
                        .ifPresent(v -> route(v, context.currentSystemTimeMs())),
                () -> {});
    }

    private void route(FaultVerdict verdict, long nowMs) {
        if (!io.falcon.scheduler.core.Decisions.worthNoting(verdict)) {
            return;
        }
        String key = verdict.jobId().orElseThrow() + "|" + verdict.outcome() + "|" + verdict.faultCode()
                + (verdict.outcome() == FaultVerdict.Outcome.SOFTWARE_FAULT
                        ? ""
                        : "|" + verdict.nodeName() + "/" + verdict.deviceName());
        Long last = forwarded.get(key);
        if (last != null && nowMs - last < REPEAT_WINDOW_MS) {
            return;
        }
        forwarded.put(key, nowMs);
        context.forward(
                new Record<>(verdict.jobId().get(), (Object) new SchedulerInput.FaultNoted(verdict), nowMs),
                SchedulerTopology.EVERY_INPUT_PARTITION_SINK);
    }

    /** Every partition of the scheduler's input. */
    static final class EveryPartition implements StreamPartitioner<String, Object> {
        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, Object value, int numPartitions) {
            return Optional.of(IntStream.range(0, numPartitions).boxed().collect(Collectors.toSet()));
        }
    }
}
