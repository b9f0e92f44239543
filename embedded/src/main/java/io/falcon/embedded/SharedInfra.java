package io.falcon.embedded;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One Kafka broker and one MariaDB server per JVM, started on first use and stopped by a shutdown hook, so all
 * integration tests of a module share them. Tests isolate themselves with {@link #uniqueName(String)}.
 */
public final class SharedInfra {

    private static final Lazy<EmbeddedKafka> KAFKA = new Lazy<>("kafka", EmbeddedKafka::launch);
    private static final Lazy<EmbeddedMariaDb> MARIA_DB = new Lazy<>("mariadb", EmbeddedMariaDb::launch);

    // Distinguishes runs that share a broker or data dir, e.g. a demo restarted on the same data.
    private static final String RUN_TAG =
            Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    private static final AtomicLong COUNTER = new AtomicLong();

    private SharedInfra() {}

    /** The JVM-wide broker, started on first call. */
    public static EmbeddedKafka kafka() {
        return KAFKA.get();
    }

    /** The JVM-wide MariaDB server, started on first call. */
    public static EmbeddedMariaDb mariaDb() {
        return MARIA_DB.get();
    }

    /** System property: bootstrap servers of a Kafka cluster to run on instead of the embedded broker. */
    public static final String KAFKA_PROPERTY = "falcon.it.kafka.bootstrap-servers";
    /** System property: JDBC URL (jdbc:mysql://HOST:PORT or jdbc:mariadb://...) of a server to run on instead. */
    public static final String DB_URL_PROPERTY = "falcon.it.db.url";
    /** System property: its user (default root), who may create databases and read the binlog. */
    public static final String DB_USER_PROPERTY = "falcon.it.db.user";
    /** System property: that user's password (default empty). */
    public static final String DB_PASSWORD_PROPERTY = "falcon.it.db.password";

    /**
     * The Kafka cluster the tests that can run elsewhere use: the one {@value #KAFKA_PROPERTY} names, else the
     * JVM-wide embedded broker.
     */
    public static KafkaBroker broker() {
        String external = System.getProperty(KAFKA_PROPERTY, "");
        return external.isBlank() ? kafka() : KafkaBroker.at(external);
    }

    /**
     * The database server the tests that can run elsewhere use (the end-to-end test, the CDC restart test): the one
     * {@value #DB_URL_PROPERTY} names (its flavor from the URL: jdbc:mysql is MySQL and Debezium's MySQL connector),
     * else the JVM-wide embedded MariaDB.
     */
    public static Database database() {
        String url = System.getProperty(DB_URL_PROPERTY, "");
        return url.isBlank()
                ? mariaDb()
                : ExternalDatabase.of(
                        url,
                        System.getProperty(DB_USER_PROPERTY, "root"),
                        System.getProperty(DB_PASSWORD_PROPERTY, ""));
    }

    /**
     * A name unique in this JVM and very likely across runs, valid both as a Kafka topic and as an unquoted
     * MariaDB database name: lower-case letters, digits and '_', at most 64 characters.
     */
    public static String uniqueName(String prefix) {
        String cleaned = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (cleaned.length() > 40) {
            cleaned = cleaned.substring(0, 40);
        }
        return cleaned + "_" + RUN_TAG + "_" + COUNTER.incrementAndGet();
    }

    /** Starts once; a failed start is remembered so every later test fails with the same cause, fast. */
    private static final class Lazy<T extends AutoCloseable> {
        private final String name;
        private final Supplier<T> starter;
        private T value;
        private RuntimeException failure;

        Lazy(String name, Supplier<T> starter) {
            this.name = name;
            this.starter = starter;
        }

        synchronized T get() {
            if (failure != null) {
                throw new IllegalStateException("Shared " + name + " failed to start earlier", failure);
            }
            if (value == null) {
                try {
                    value = starter.get();
                } catch (RuntimeException e) {
                    failure = e;
                    throw e;
                }
                Runtime.getRuntime().addShutdownHook(new Thread(this::close, "falcon-shared-" + name + "-shutdown"));
            }
            return value;
        }

        private synchronized void close() {
            try {
                value.close();
            } catch (Exception e) {
                System.err.println("Shared " + name + " did not close cleanly: " + e);
            }
        }
    }
}
