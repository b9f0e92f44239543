package io.falcon.scheduler.topology;

import io.falcon.events.SchedulerInput;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.JobRow;
import io.falcon.scheduler.core.Intake;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Re-keys row changes by tpu_type so that one scheduler task sees every cluster and job of an accelerator type.
 * Falcon's own status write-backs are dropped here, before they cost a repartition.
 */
final class IntakeProcessor implements Processor<String, byte[], String, Object> {
    private ProcessorContext<String, Object> context;

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        if (topic.equals(Topics.CDC_CLUSTERS.name())) {
            SchedulerTopology.DEAD_LETTERS.decode(Topics.CDC_CLUSTERS.valueSerde(),
                    record, context).ifPresent(change -> {
                        Optional<String> oldType = change.before().map(ClusterRow::tpuType);
                        Optional<String> newType = change.after().map(ClusterRow::tpuType);
                        if (oldType.isPresent() && newType.isPresent() && !oldType.equals(newType)) {
                            // The old type's scheduler owns the cluster's jobs and pools until told it left.
                            forward(record, oldType, new SchedulerInput.ClusterLeft(change.clusterId()));
                        }
                        forward(record, newType.or(() -> oldType), new SchedulerInput.ClusterChanged(change));
                    });
        } else {
            SchedulerTopology.DEAD_LETTERS.decode(Topics.CDC_JOBS.valueSerde(), record,
                    context).ifPresent(change -> {
                        Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
                        if (Intake.classify(change, now).isPresent()) {
                            forward(record, change.after().or(change::before).map(JobRow::tpuType),
                                    new SchedulerInput.JobChanged(change));
                        }
                    });
        }
    }

    private void forward(Record<String, byte[]> record, Optional<String> tpuType, SchedulerInput input) {
        // Rows with an empty tpu_type still reach the scheduler so that validation can answer InvalidSpec.
        String key = tpuType.filter(t -> !t.isBlank()).orElse("unknown");
        context.forward(new Record<>(key, (Object) input, record.timestamp()), SchedulerTopology.INPUT_SINK);
    }
}
