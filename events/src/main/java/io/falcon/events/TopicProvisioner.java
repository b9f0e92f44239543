package io.falcon.events;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Creates the catalog's topics that do not exist yet. Every topic gets the same partition count, which keeps
 * scheduler.input and executor.events co-partitioned for the scheduler's join by tpu_type.
 */
public final class TopicProvisioner {
    private TopicProvisioner() {}

    public static void ensureAll(String bootstrapServers, int partitions, short replicationFactor) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = Topics.all().stream()
                    .filter(topic -> !existing.contains(topic.name()))
                    .map(topic -> new NewTopic(topic.name(), partitions, replicationFactor)
                            .configs(
                                    topic.compacted()
                                            ? Map.of(
                                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                                    TopicConfig.CLEANUP_POLICY_COMPACT)
                                            : Map.of()))
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
}
