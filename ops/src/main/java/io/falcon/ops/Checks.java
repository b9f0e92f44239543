package io.falcon.ops;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * Readiness checks every component needs: consumer group membership and a database ping. Kafka Streams checks are
 * in {@link StreamsChecks} so that components without Kafka Streams need not have it on their class path.
 */
public final class Checks {
    private static final int JDBC_TIMEOUT_SECONDS = 2;

    private Checks() {}

    /**
     * Ready once the consumer has been assigned partitions. The supplier must be safe to call from another thread
     * (KafkaConsumer is not: pass {@link AssignmentTracker#assignment()} or a copy the poll loop publishes).
     */
    public static ReadinessCheck consumerAssignment(String name, Supplier<Set<TopicPartition>> assignment) {
        return ReadinessCheck.of(name, () -> {
            Set<TopicPartition> partitions = assignment.get();
            if (partitions == null || partitions.isEmpty()) {
                return ReadinessCheck.Result.fail("no partitions assigned yet");
            }
            return ReadinessCheck.Result.ok(partitions.size() + " partitions assigned");
        });
    }

    /** Ready while the flag is true, e.g. "the poll loop has joined its group". */
    public static ReadinessCheck flag(String name, BooleanSupplier ready, String whyNot) {
        return ReadinessCheck.of(
                name, () -> ready.getAsBoolean() ? ReadinessCheck.Result.ok("ok") : ReadinessCheck.Result.fail(whyNot));
    }

    /**
     * Ready once the tracker's consumer has joined its group (an empty assignment counts: a group with more members
     * than partitions leaves some members idle, and they are still healthy).
     */
    public static ReadinessCheck consumerJoined(String name, AssignmentTracker tracker) {
        return ReadinessCheck.of(
                name,
                () -> tracker.joined()
                        ? ReadinessCheck.Result.ok(tracker.assignment().size() + " partitions assigned")
                        : ReadinessCheck.Result.fail("consumer has not joined its group yet"));
    }

    /** Pings the database through a pool or data source. */
    public static ReadinessCheck jdbc(String name, DataSource dataSource) {
        return ReadinessCheck.of(name, () -> {
            try (Connection connection = dataSource.getConnection()) {
                return ping(connection);
            } catch (SQLException e) {
                return ReadinessCheck.Result.fail("database unreachable: " + e.getMessage());
            }
        });
    }

    /** Opens a connection to the URL and pings it; the password never appears in the result. */
    public static ReadinessCheck jdbc(String name, String url, String user, String password) {
        return ReadinessCheck.of(name, () -> {
            try (Connection connection = DriverManager.getConnection(url, user, password)) {
                return ping(connection);
            } catch (SQLException e) {
                return ReadinessCheck.Result.fail("database unreachable: " + e.getMessage());
            }
        });
    }

    private static ReadinessCheck.Result ping(Connection connection) throws SQLException {
        return connection.isValid(JDBC_TIMEOUT_SECONDS)
                ? ReadinessCheck.Result.ok("database answers")
                : ReadinessCheck.Result.fail("database did not answer within " + JDBC_TIMEOUT_SECONDS + "s");
    }

    /**
     * A rebalance listener that publishes the consumer's assignment for other threads. Pass it to
     * {@code consumer.subscribe(topics, tracker)}; it forwards every callback to an optional delegate.
     */
    public static final class AssignmentTracker implements ConsumerRebalanceListener {
        private final ConsumerRebalanceListener delegate;
        private volatile Set<TopicPartition> assignment = Set.of();
        private volatile boolean joined;

        public AssignmentTracker() {
            this(null);
        }

        public AssignmentTracker(ConsumerRebalanceListener delegate) {
            this.delegate = delegate;
        }

        public Set<TopicPartition> assignment() {
            return assignment;
        }

        public boolean joined() {
            return joined;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            java.util.Set<TopicPartition> next = new java.util.HashSet<>(assignment);
            next.addAll(partitions);
            assignment = Set.copyOf(next);
            joined = true;
            if (delegate != null) {
                delegate.onPartitionsAssigned(partitions);
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            java.util.Set<TopicPartition> next = new java.util.HashSet<>(assignment);
            next.removeAll(partitions);
            assignment = Set.copyOf(next);
            if (delegate != null) {
                delegate.onPartitionsRevoked(partitions);
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            java.util.Set<TopicPartition> next = new java.util.HashSet<>(assignment);
            next.removeAll(partitions);
            assignment = Set.copyOf(next);
            joined = false;
            if (delegate != null) {
                delegate.onPartitionsLost(partitions);
            }
        }
    }
}
