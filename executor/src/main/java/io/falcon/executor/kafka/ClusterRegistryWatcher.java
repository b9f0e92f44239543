package io.falcon.executor.kafka;

import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.ClusterRow;
import io.falcon.events.executor.ClusterTarget;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the clusters registry (CDC_CLUSTERS) from the beginning, without a consumer group, and starts the status
 * informers of every registered cluster, whatever its status. This is how, after a restart, the executor again
 * reports jobs that are running on clusters no new command mentions: an offline or maintenance cluster starts no new
 * job, but those already there run on, and their ends must be reported (a restarted executor that skipped offline
 * clusters never reported them, and a job that succeeded there ended Failed/Timeout; simulation seed 2000188).
 */
public final class ClusterRegistryWatcher implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ClusterRegistryWatcher.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<ClusterTarget> watch;
    private volatile boolean running = true;

    public ClusterRegistryWatcher(KafkaConsumer<byte[], byte[]> consumer, Consumer<ClusterTarget> watch) {
        this.consumer = consumer;
        this.watch = watch;
    }

    @Override
    public void run() {
        String topic = Topics.CDC_CLUSTERS.name();
        try {
            List<TopicPartition> partitions = List.of();
            while (running && partitions.isEmpty()) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
                partitions = infos == null
                        ? List.of()
                        : infos.stream()
                                .map(p -> new TopicPartition(topic, p.partition()))
                                .toList();
                for (int i = 0; i < 25 && running && partitions.isEmpty(); i++) {
                    Thread.sleep(200);
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
                    try {
                        ClusterChange change =
                                Topics.CDC_CLUSTERS.valueSerde().deserializer().deserialize(topic, record.value());
                        if (change != null) {
                            change.after().ifPresent(r -> watch.accept(target(r)));
                        }
                    } catch (RuntimeException e) {
                        log.warn(
                                "skipping undecodable cluster change at {}-{}@{}: {}",
                                record.topic(),
                                record.partition(),
                                record.offset(),
                                e.getMessage());
                    }
                }
            }
        } catch (WakeupException | InterruptedException e) {
            // stopping
        } catch (RuntimeException e) {
            log.error("cluster registry watcher stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    static ClusterTarget target(ClusterRow row) {
        return row.target();
    }

    public void stop() {
        running = false;
        consumer.wakeup();
    }
}
