package io.falcon.events;

import io.falcon.events.security.KafkaConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Creates the catalog's topics that do not exist yet. Every topic gets the same partition count, which keeps
 * scheduler.input and executor.events co-partitioned for the scheduler's join by tpu_type.
 */
public final class TopicProvisioner {
    private TopicProvisioner() {}

    /**
     * How long the decision ledger keeps what: every decision for {@code fullHistory} (the log cleaner does not
     * compact younger records), then only the latest decision per job until {@code retention}.
     */
    public record LedgerRetention(Duration retention, Duration fullHistory) {
        public static final LedgerRetention DEFAULT = new LedgerRetention(Duration.ofDays(7), Duration.ofDays(1));

        public LedgerRetention {
            if (retention.compareTo(Duration.ofHours(1)) < 0 || retention.compareTo(Duration.ofDays(3650)) > 0) {
                throw new IllegalArgumentException(
                        "decision ledger retention must be between 1h and 3650d, got " + retention);
            }
            if (fullHistory.isNegative() || fullHistory.compareTo(retention) > 0) {
                throw new IllegalArgumentException("decision ledger full history (" + fullHistory
                        + ") must be between 0 and the retention (" + retention + ")");
            }
        }
    }

    public static void ensureAll(String bootstrapServers, int partitions, short replicationFactor) {
        ensureAll(bootstrapServers, partitions, replicationFactor, LedgerRetention.DEFAULT);
    }

    /** The configs a topic is created with. */
    static Map<String, String> configs(Topic<?, ?> topic, LedgerRetention ledger) {
        if (topic.equals(Topics.DECISIONS)) {
            return Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG,
                    TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE,
                    TopicConfig.RETENTION_MS_CONFIG,
                    Long.toString(ledger.retention().toMillis()),
                    TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
                    Long.toString(ledger.fullHistory().toMillis()));
        }
        return topic.compacted()
                ? Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)
                : Map.of();
    }

    public static void ensureAll(
            String bootstrapServers, int partitions, short replicationFactor, LedgerRetention ledger) {
        ensureAll(KafkaConnection.plaintext(bootstrapServers), partitions, replicationFactor, ledger);
    }

    public static void ensureAll(
            KafkaConnection kafka, int partitions, short replicationFactor, LedgerRetention ledger) {
        String bootstrapServers = kafka.bootstrapServers();
        try (Admin admin = Admin.create(kafka.properties())) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = Topics.all().stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic ->
                            new NewTopic(topic.name(), partitions, replicationFactor).configs(configs(topic, ledger)))
                    .toList();
            if (!missing.isEmpty()) {
                admin.createTopics(missing).all().get();
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw new IllegalStateException("cannot create Falcon topics on " + bootstrapServers, e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /**
     * Creates those of the given catalog topics that do not exist yet, with as many partitions as {@code like} has
     * (1 if it is missing too), for a component that must not fail to start on a topic another component or the
     * provisioning step has not created (a Kafka Streams source topic that is missing fails the whole assignment).
     * "Already exists" is success.
     */
    public static void ensureExist(
            String bootstrapServers, short replicationFactor, Topic<?, ?> like, List<Topic<?, ?>> topics) {
        ensureExist(KafkaConnection.plaintext(bootstrapServers), replicationFactor, like, topics);
    }

    /** As above on a connection that may be secured. */
    public static void ensureExist(
            KafkaConnection kafka, short replicationFactor, Topic<?, ?> like, List<Topic<?, ?>> topics) {
        String bootstrapServers = kafka.bootstrapServers();
        try (Admin admin = Admin.create(kafka.properties())) {
            Set<String> existing = admin.listTopics().names().get();
            List<Topic<?, ?>> missing = topics.stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .toList();
            if (missing.isEmpty()) {
                return;
            }
            int partitions = existing.contains(like.name())
                    ? admin.describeTopics(List.of(like.name()))
                            .allTopicNames()
                            .get()
                            .get(like.name())
                            .partitions()
                            .size()
                    : 1;
            for (Topic<?, ?> topic : missing) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic.name(), partitions, replicationFactor)
                                    .configs(configs(topic, LedgerRetention.DEFAULT))))
                            .all()
                            .get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                        throw e;
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics on " + bootstrapServers, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }
}
