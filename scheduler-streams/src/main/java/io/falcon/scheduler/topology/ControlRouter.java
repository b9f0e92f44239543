package io.falcon.scheduler.topology;

import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.control.RetrySwitch;
import io.falcon.ops.FalconMetrics;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * An operator's switch on falcon.scheduler.controls reaches every scheduler task: it is multicast to every partition
 * of falcon.scheduler.input as {@link SchedulerInput.RetriesSwitched}, so each task applies it in the step that reads
 * it, in order with the jobs' changes after it. A record under another key is not a switch this Falcon knows: it goes
 * to the dead-letter topic, as a value that does not decode does.
 */
final class ControlRouter implements Processor<String, byte[], String, Object> {
    private final FalconMetrics metrics;
    private ProcessorContext<String, Object> context;

    ControlRouter(FalconMetrics metrics) {
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
                () -> {
                    if (!RetrySwitch.KEY.equals(record.key())) {
                        throw new IllegalArgumentException(
                                "no control " + record.key() + " (known: " + RetrySwitch.KEY + ")");
                    }
                    SchedulerTopology.DEAD_LETTERS
                            .decode(Topics.SCHEDULER_CONTROLS.valueSerde(), record, context, metrics::deadLetter)
                            .ifPresent(value -> context.forward(
                                    new Record<>(
                                            RetrySwitch.KEY,
                                            (Object) new SchedulerInput.RetriesSwitched(value),
                                            context.currentSystemTimeMs()),
                                    SchedulerTopology.EVERY_INPUT_PARTITION_SINK));
                },
                () -> {});
    }
}
