package io.falcon.events;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Static group membership for every Falcon consumer group (Kafka Streams and plain consumers alike). A member that
 * crashes and comes back with the same {@code group.instance.id} gets its partitions back at once, without a rebalance
 * and without waiting for the session timeout (45 s) in which nobody would process them; a member that closes leaves
 * the group explicitly, so a replacement with another id is not kept waiting either.
 *
 * <p>The id is the instance's stable name: {@code FALCON_INSTANCE_ID} when set (the process deployment sets it per
 * process; a Kubernetes pod can set it from its name), else the host name (the pod's name, the container's id) and the
 * process id (1 in a container, so stable across a container restart; unique among processes on one machine).
 */
public final class GroupMembership {
    public static final String INSTANCE_ID_ENV = "FALCON_INSTANCE_ID";

    private GroupMembership() {}

    /** The setting falcon.instance-id (io.falcon.events.config.SharedKeys.INSTANCE_ID): -D, else the environment. */
    public static String instanceId() {
        String property = System.getProperty("falcon.instance-id");
        if (property != null && !property.isBlank()) {
            return property.strip();
        }
        return instanceId(System.getenv());
    }

    static String instanceId(Map<String, String> environment) {
        Optional<String> explicit = Optional.ofNullable(environment.get(INSTANCE_ID_ENV))
                .map(String::strip)
                .filter(s -> !s.isEmpty());
        if (explicit.isPresent()) {
            return explicit.get();
        }
        String host = environment.getOrDefault("HOSTNAME", "");
        if (host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = "localhost";
            }
        }
        return host + "-" + ProcessHandle.current().pid();
    }

    /** Consumer properties with static membership under {@code instanceId} (one per group per running instance). */
    public static Map<String, Object> staticMember(Map<String, Object> props, String instanceId) {
        java.util.HashMap<String, Object> out = new java.util.HashMap<>(props);
        out.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        return out;
    }

    /** Commits nothing, leaves the group (so its partitions move at once) and closes. */
    public static void leaveAndClose(Consumer<?, ?> consumer, Duration timeout) {
        consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout));
    }
}
