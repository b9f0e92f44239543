package io.falcon.local.security;

import static io.falcon.testkit.builders.ClusterRowBuilder.clusterRow;
import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static io.falcon.testkit.builders.JobRowBuilder.jobRow;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.cdc.CdcConfig;
import io.falcon.cdc.CdcIngest;
import io.falcon.cli.FalconCli;
import io.falcon.embedded.EmbeddedKafka;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.SchedulerInput;
import io.falcon.events.Settings;
import io.falcon.events.Topics;
import io.falcon.events.cdc.JobChange;
import io.falcon.events.cdc.SchedulerRouting;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.KafkaSecurityKeys;
import io.falcon.events.config.SettingValues;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.security.KafkaAccess;
import io.falcon.events.security.KafkaClientSecurity;
import io.falcon.events.security.KafkaConnection;
import io.falcon.events.status.TaskStatus;
import io.falcon.faults.FaultStreamsApp;
import io.falcon.faults.FaultStreamsConfig;
import io.falcon.scheduler.SchedulerApp;
import io.falcon.scheduler.SchedulerConfig;
import io.falcon.statussink.SchemaMigrator;
import io.falcon.testkit.Await;
import io.falcon.testkit.builders.RowChangeBuilder;
import io.falcon.testkit.kafka.TopicProducer;
import io.falcon.testkit.kafka.TopicReader;
import io.falcon.testkit.tls.TestCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Falcon's Kafka clients on a broker that encrypts, authenticates and authorizes: an SSL listener requiring client
 * certificates, a SASL_PLAINTEXT listener with SCRAM-SHA-512 users, and the StandardAuthorizer with exactly the
 * ACLs `falcon acls --apply` creates. Every client is configured the way a deployment configures it, through the
 * catalog's falcon.kafka.* settings with passwords in files. One broker for the whole class.
 */
class KafkaSecurityIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static Path dir;
    private static TestCertificates certificates;
    private static EmbeddedKafka kafka;
    private static final Map<String, Path> PASSWORD_FILES = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("falcon-kafka-security");
        certificates = TestCertificates.generate(dir);
        kafka = EmbeddedKafka.launch(new EmbeddedKafka.Security(
                Optional.of(new EmbeddedKafka.Security.Tls(
                        certificates.brokerKeyStore(),
                        certificates.password(),
                        Optional.of(certificates.brokerTrustStore()))),
                true,
                true,
                List.of(TestCertificates.CLIENT_PRINCIPAL)));
        for (String component : KafkaAccess.COMPONENTS) {
            String password = "pw-" + component + "-" + Long.toHexString(System.nanoTime());
            PASSWORD_FILES.put(component, Files.writeString(dir.resolve(component + ".password"), password + "\n"));
            kafka.createScramUser("falcon-" + component, password);
        }
        // the ACLs as an operator creates them, over the broker's admin listener
        StringWriter out = new StringWriter();
        int exit = FalconCli.run(
                new Settings(Map.of("FALCON_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers())),
                new PrintWriter(out),
                new PrintWriter(out),
                "acls",
                "--apply");
        assertThat(exit).as(out.toString()).isZero();
        long expected = KafkaAccess.plan(KafkaAccess.Names.DEFAULTS, Map.of()).stream()
                .mapToLong(access -> access.grants().size())
                .sum();
        try (Admin admin = kafka.admin()) {
            Await.until(
                    expected + " ACLs in force",
                    WAIT,
                    () -> admin.describeAcls(AclBindingFilter.ANY)
                                    .values()
                                    .get()
                                    .size()
                            == expected,
                    () -> out.toString());
        }
        // the topics as topics-init creates them: with its own principal, which may create nothing else
        StringWriter topics = new StringWriter();
        int created = FalconCli.run(
                new Settings(settings("topics-init")),
                new PrintWriter(topics),
                new PrintWriter(topics),
                "topics",
                "create",
                "--partitions",
                "1",
                "--replication-factor",
                "1");
        assertThat(created).as(topics.toString()).isZero();
        assertThat(kafka.listTopics()).contains(Topics.TASK_STATUS.name(), Topics.DEVICE_FAULTS.name());
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** A component's environment on a SCRAM deployment: its own user, its password in a mounted file. */
    private static Map<String, String> settings(String component) {
        Map<String, String> env = new HashMap<>();
        env.put("FALCON_KAFKA_BOOTSTRAP_SERVERS", kafka.saslBootstrapServers());
        env.put("FALCON_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
        env.put("FALCON_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
        env.put("FALCON_KAFKA_SASL_USERNAME", "falcon-" + component);
        env.put("FALCON_KAFKA_SASL_PASSWORD_FILE", PASSWORD_FILES.get(component).toString());
        return env;
    }

    private static KafkaConnection connection(String bootstrapServers, Map<String, String> env) {
        return new KafkaConnection(
                bootstrapServers, KafkaClientSecurity.from(SettingValues.parsePart(KafkaSecurityKeys.ALONE, env)));
    }

    private static KafkaConnection as(String component) {
        return connection(kafka.saslBootstrapServers(), settings(component));
    }

    @Test
    void tlsWithAClientCertificateCarriesRecordsAndAClientWithoutOneIsRefused() throws Exception {
        Path trustPassword = Files.writeString(dir.resolve("trust.password"), certificates.password());
        Map<String, String> env = new HashMap<>(Map.of(
                "FALCON_KAFKA_SECURITY_PROTOCOL", "SSL",
                "FALCON_KAFKA_SSL_TRUSTSTORE_LOCATION",
                        certificates.clientTrustStore().toString(),
                "FALCON_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE", trustPassword.toString()));
        String topic = "security-it-tls";
        kafka.createTopics(topic);
        KafkaConnection anonymous = connection(kafka.sslBootstrapServers(), env);
        env.put(
                "FALCON_KAFKA_SSL_KEYSTORE_LOCATION",
                certificates.clientKeyStore().toString());
        env.put("FALCON_KAFKA_SSL_KEYSTORE_PASSWORD", certificates.password());
        KafkaConnection withCertificate = connection(kafka.sslBootstrapServers(), env);

        DeviceFault fault = deviceFault("tls-cluster", "node-1", "npu-0").build();
        try (TopicProducer<String, DeviceFault> producer =
                        TopicProducer.to(withCertificate, Topics.DEVICE_FAULTS, topic);
                TopicReader<String, DeviceFault> reader =
                        TopicReader.fromBeginning(withCertificate, Topics.DEVICE_FAULTS, topic)) {
            producer.send(fault.topicKey(), fault);
            assertThat(reader.awaitValue("the fault over TLS", WAIT, fault::equals))
                    .isEqualTo(fault);
        }
        // the broker requires a client certificate; the JVM's default trust store does not know the broker's CA
        assertThat(refusal(anonymous)).isInstanceOf(SslAuthenticationException.class);
        Map<String, String> untrusting = new HashMap<>(env);
        untrusting.remove("FALCON_KAFKA_SSL_TRUSTSTORE_LOCATION");
        untrusting.remove("FALCON_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE");
        assertThat(refusal(connection(kafka.sslBootstrapServers(), untrusting)))
                .isInstanceOf(SslAuthenticationException.class);
    }

    @Test
    void scramLogsInWithThePasswordFileAndRefusesAWrongPassword() throws Exception {
        try (Admin admin = Admin.create(as("cli").properties())) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(Topics.TASK_STATUS.name());
        }
        Map<String, String> wrong = settings("cli");
        wrong.put(
                "FALCON_KAFKA_SASL_PASSWORD_FILE",
                Files.writeString(dir.resolve("wrong"), "nope").toString());
        assertThat(refusal(connection(kafka.saslBootstrapServers(), wrong)))
                .isInstanceOf(SaslAuthenticationException.class);
    }

    /**
     * cdc-ingest's principal feeds the scheduler, the real scheduler (Kafka Streams, exactly once: its group,
     * changelog topics and transactional ids) answers with a status, and the status-sink's principal reads and
     * commits it in its group. None of them can do what another component does.
     */
    @Test
    void theSchedulerChainRunsOnItsOwnAclsAndEachPrincipalIsRefusedBeyondThem() throws Exception {
        String cluster = "acl-c1";
        String job = "acl-job-1";
        Map<String, String> schedulerSettings = settings("scheduler");
        schedulerSettings.put("falcon.kafka.replication-factor", "1");
        schedulerSettings.put(
                "falcon.scheduler.state-dir",
                Files.createTempDirectory(dir, "scheduler").toString());
        try (SchedulerApp scheduler = new SchedulerApp(SchedulerConfig.from(schedulerSettings)).start();
                TopicProducer<String, SchedulerInput> cdc = TopicProducer.to(as("cdc-ingest"), Topics.SCHEDULER_INPUT);
                KafkaConsumer<byte[], byte[]> sink = consumer(as("status-sink"), "falcon-status-sink")) {
            SchedulerRouting.route(RowChangeBuilder.inserted(
                                    clusterRow(cluster).tpuType("v5p").build())
                            .build())
                    .forEach(r -> cdc.send(r.key(), r.input()));
            SchedulerRouting.route(RowChangeBuilder.inserted(jobRow(job)
                                    .actor("alice")
                                    .tpuType("v5p")
                                    .topology("2x2x1")
                                    .build())
                            .build())
                    .forEach(r -> cdc.send(r.key(), r.input()));

            sink.subscribe(List.of(Topics.TASK_STATUS.name()));
            ConsumerRecord<byte[], byte[]> status = Await.present(
                    "a status of " + job + " read by the status-sink's principal",
                    WAIT,
                    () -> {
                        for (ConsumerRecord<byte[], byte[]> record : sink.poll(Duration.ofMillis(200))) {
                            TaskStatus value = Topics.TASK_STATUS.valueSerde().fromBytes(record.value());
                            if (value.jobId().equals(job)) {
                                return Optional.of(record);
                            }
                        }
                        return Optional.empty();
                    },
                    () -> "scheduler " + scheduler.state());
            sink.commitSync(Map.of(
                    new TopicPartition(status.topic(), status.partition()),
                    new OffsetAndMetadata(status.offset() + 1)));
            assertThat(scheduler.state().isRunningOrRebalancing()).isTrue();
        }
        assertThat(writeRefusal(as("status-sink"), Topics.DEVICE_FAULTS.name()))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(writeRefusal(as("cdc-ingest"), Topics.EXECUTOR_COMMANDS.name()))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(writeRefusal(as("scheduler"), Topics.ISOLATION.name()))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(groupRefusal(as("status-sink"), "falcon-executor", Topics.TASK_STATUS.name()))
                .isInstanceOf(GroupAuthorizationException.class);
        // Kafka Streams' transactional ids are the application's own: the scheduler cannot use fault-streams'
        assertThat(transactionRefusal(as("scheduler"), "falcon-fault-streams-1-0"))
                .isInstanceOf(TransactionalIdAuthorizationException.class);
    }

    /** The CLI's principal injects a fault; the real fault-streams consumes it exactly once on its own ACLs. */
    @Test
    void faultStreamsAndTheCliWorkOnTheirAclsOnly() throws Exception {
        Map<String, String> faultSettings = settings("fault-streams");
        faultSettings.put("falcon.kafka.replication-factor", "1");
        faultSettings.put(
                "falcon.faults.state-dir",
                Files.createTempDirectory(dir, "faults").toString());
        DeviceFault fault = deviceFault("acl-c2", "node-1", "npu-0")
                .code("0x80E18402")
                .level("L2")
                .receivedAt(System.currentTimeMillis())
                .build();
        try (FaultStreamsApp faults = new FaultStreamsApp(FaultStreamsConfig.from(faultSettings)).start();
                TopicProducer<String, DeviceFault> cli = TopicProducer.to(as("cli"), Topics.DEVICE_FAULTS);
                Admin admin = kafka.admin()) {
            long offset = cli.send(fault.topicKey(), fault).offset();
            // its offsets are committed in its transactions: committed past the fault means it was processed
            Await.until(
                    "fault-streams committed past the injected fault",
                    WAIT,
                    () -> Optional.ofNullable(admin.listConsumerGroupOffsets("falcon-fault-streams")
                                    .partitionsToOffsetAndMetadata()
                                    .get()
                                    .get(new TopicPartition(Topics.DEVICE_FAULTS.name(), 0)))
                            .map(committed -> committed.offset() > offset)
                            .orElse(false),
                    () -> "fault-streams " + faults.streams().state());
        }
        try (TopicReader<String, TaskStatus> watch = TopicReader.fromBeginning(as("cli"), Topics.TASK_STATUS)) {
            assertThat(watch.poll()).isNotNull();
        }
        assertThat(writeRefusal(as("cli"), Topics.EXECUTOR_COMMANDS.name()))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(writeRefusal(as("fault-streams"), Topics.TASK_STATUS.name()))
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(groupRefusal(as("cli"), "falcon-scheduler", Topics.TASK_STATUS.name()))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    /** The executor's clients: its command group, the topics it assigns itself, its outputs. */
    @Test
    void theExecutorWorksOnItsAclsOnly() throws Exception {
        KafkaConnection executor = as("executor");
        try (KafkaConsumer<byte[], byte[]> commands = consumer(executor, "falcon-executor");
                KafkaProducer<byte[], byte[]> producer = producer(executor, Map.of())) {
            commands.subscribe(List.of(Topics.EXECUTOR_COMMANDS.name()));
            Await.until(
                    "the executor's group has its partition",
                    WAIT,
                    () -> {
                        commands.poll(Duration.ofMillis(100));
                        return !commands.assignment().isEmpty();
                    },
                    commands::toString);
            commands.commitSync();
            for (String topic : List.of(
                    Topics.EXECUTOR_EVENTS.name(), Topics.ISOLATION_COMMANDS.name(), Topics.DEAD_LETTER.name())) {
                producer.send(new ProducerRecord<>(topic, "k".getBytes(), "{}".getBytes()))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        try (TopicReader<?, ?> clusters = TopicReader.fromBeginning(executor, Topics.CDC_CLUSTERS);
                TopicReader<?, ?> isolation = TopicReader.fromBeginning(executor, Topics.ISOLATION)) {
            assertThat(clusters.poll()).isNotNull();
            assertThat(isolation.poll()).isNotNull();
        }
        assertThat(writeRefusal(executor, Topics.TASK_STATUS.name())).isInstanceOf(TopicAuthorizationException.class);
        assertThat(groupRefusal(executor, "falcon-status-sink", Topics.EXECUTOR_COMMANDS.name()))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    /** The console's real topic reader as its principal: it reads the five topics, and may write nothing. */
    @Test
    void theConsoleReadsOnItsAclsOnly() throws Exception {
        io.falcon.console.view.ConsoleIndex index = new io.falcon.console.view.ConsoleIndex(100, 8);
        KafkaConnection console = as("console");
        io.falcon.events.fault.NodeIsolation isolated = new io.falcon.events.fault.NodeIsolation(
                List.of("npu-2"),
                Map.of("npu-2", List.of(new io.falcon.events.fault.NodeIsolation.DeviceIsolation("0x1", "L2", 1L))));
        try (io.falcon.console.TopicFollower follower = new io.falcon.console.TopicFollower(console, index).start();
                TopicProducer<String, io.falcon.events.fault.NodeIsolation> writer =
                        TopicProducer.to(kafka.bootstrapServers(), Topics.ISOLATION)) {
            writer.send("acl-console-c1/node-4", isolated);
            Await.until(
                    "the console's principal read the isolation",
                    WAIT,
                    () -> index.isolations().containsKey("acl-console-c1/node-4"),
                    () -> index.isolations().toString());
            try (TopicProducer<String, io.falcon.events.executor.ExecutorEvent> executor =
                    TopicProducer.to(kafka.bootstrapServers(), Topics.EXECUTOR_EVENTS)) {
                executor.send(
                        "v6e",
                        io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent("acl-console-short")
                                .cluster("acl-console-c1")
                                .reservationShort("res-acl", 1, 2));
            }
            Await.until(
                    "the console's principal read the executor's reservation shortage",
                    WAIT,
                    () -> index.clusterFacts("acl-console-c1").shortage().isPresent(),
                    () -> index.clusterFacts("acl-console-c1").toString());
            assertThat(follower.following()).isTrue();
        }
        // with WRITE on no topic at all, its (idempotent) producer is refused before any topic is looked at
        for (String topic : List.of(Topics.TASK_STATUS.name(), Topics.ISOLATION.name(), Topics.DEVICE_FAULTS.name())) {
            assertThat(writeRefusal(console, topic))
                    .as(topic)
                    .isInstanceOfAny(
                            TopicAuthorizationException.class,
                            org.apache.kafka.common.errors.ClusterAuthorizationException.class);
        }
        assertThat(groupRefusal(console, "falcon-status-sink", Topics.TASK_STATUS.name()))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    /**
     * The real cdc-ingest as its principal: Debezium creates and checks its offsets and schema history topics,
     * reads them back (the schema history in its group), and publishes a row change; it may create no other topic.
     */
    @Test
    void cdcIngestRunsOnItsAclsOnly() throws Exception {
        EmbeddedMariaDb db = SharedInfra.mariaDb();
        String database = SharedInfra.uniqueName("kafka_acl").replaceAll("[^A-Za-z0-9_]", "_");
        db.createDatabase(database);
        try (Connection connection = db.connect(database)) {
            JobsTable.create(connection);
        }
        SchemaMigrator.migrate(db.jdbcUrl(database), db.user(), db.password());
        String job = "acl-cdc-job-1";
        try (Connection connection = db.connect(database);
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO jobs (id, actor, name, tpu_type, topology, spec) VALUES ('" + job
                    + "', 'alice', 'n', 'v5e', '2x4', '{}')");
        }
        Map<String, String> cdcSettings = settings("cdc-ingest");
        cdcSettings.put(CdcIngestKeys.FLAVOR.key(), "mariadb");
        cdcSettings.put(CdcIngestKeys.DB_HOST.key(), db.host());
        cdcSettings.put(CdcIngestKeys.DB_PORT.key(), Integer.toString(db.port()));
        cdcSettings.put(CdcIngestKeys.DB_USER.key(), db.user());
        cdcSettings.put(CdcIngestKeys.DB_PASSWORD.key(), db.password());
        cdcSettings.put(CdcIngestKeys.DB_NAME.key(), database);
        cdcSettings.put(CdcIngestKeys.SERVER_ID.key(), Long.toString(7000 + Math.floorMod(database.hashCode(), 1000)));
        cdcSettings.put("falcon.kafka.replication-factor", "1");
        try (TopicReader<String, JobChange> jobs =
                        TopicReader.fromBeginning(kafka.bootstrapServers(), Topics.CDC_JOBS);
                CdcIngest cdc = new CdcIngest(CdcConfig.from(cdcSettings))) {
            cdc.start();
            jobs.awaitValue(
                    "the snapshot of " + job + " published by cdc-ingest's principal",
                    WAIT,
                    change -> change.after().map(row -> row.id().equals(job)).orElse(false));
        }
        assertThat(kafka.listTopics())
                .contains(
                        KafkaAccess.Names.DEFAULTS.cdcOffsetsTopic(),
                        KafkaAccess.Names.DEFAULTS.cdcSchemaHistoryTopic());
        KafkaConnection cdc = as("cdc-ingest");
        try (Admin admin = Admin.create(cdc.properties())) {
            Throwable refused = Await.present(
                    "cdc-ingest refused to create another topic",
                    WAIT,
                    () -> {
                        try {
                            admin.createTopics(List.of(new NewTopic("not-falcons", 1, (short) 1)))
                                    .all()
                                    .get(30, TimeUnit.SECONDS);
                            return Optional.empty();
                        } catch (java.util.concurrent.ExecutionException e) {
                            return Optional.of(e.getCause());
                        }
                    },
                    () -> "created");
            assertThat(refused).isInstanceOf(TopicAuthorizationException.class);
        }
        assertThat(writeRefusal(cdc, Topics.TASK_STATUS.name())).isInstanceOf(TopicAuthorizationException.class);
    }

    // --- clients and refusals -------------------------------------------------------------------------------

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConnection connection, String group) {
        return new KafkaConsumer<>(
                connection.with(Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaConnection connection, Map<String, Object> own) {
        Map<String, Object> config = new HashMap<>(own);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        return new KafkaProducer<>(connection.with(config), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** What the broker answers a client that lists topics: the exception of a refused handshake or login. */
    private static Throwable refusal(KafkaConnection connection) {
        Map<String, Object> quick = Map.of(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(connection.with(quick))) {
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
            throw new AssertionError("the broker let " + connection + " in");
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer to " + connection, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static Throwable writeRefusal(KafkaConnection connection, String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(connection, Map.of())) {
            producer.send(new ProducerRecord<>(topic, "k".getBytes(), "{}".getBytes()))
                    .get(60, TimeUnit.SECONDS);
            throw new AssertionError(connection + " could write to " + topic);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (org.apache.kafka.common.KafkaException e) {
            // the idempotent producer's id was refused before this send: send() throws at once, the refusal as cause
            if (e instanceof org.apache.kafka.common.errors.AuthorizationException) {
                return e;
            }
            return e.getCause() == null ? e : e.getCause();
        }
    }

    /** Joining a group another component owns; the exception poll throws once the coordinator answers. */
    private static Throwable groupRefusal(KafkaConnection connection, String group, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(connection, group)) {
            consumer.subscribe(List.of(topic));
            return Await.present(
                    connection.security().sasl() + " refused in group " + group,
                    WAIT,
                    () -> {
                        try {
                            consumer.poll(Duration.ofMillis(200));
                            return Optional.empty();
                        } catch (org.apache.kafka.common.errors.AuthorizationException e) {
                            return Optional.of(e);
                        }
                    },
                    () -> "assigned " + consumer.assignment());
        }
    }

    private static Throwable transactionRefusal(KafkaConnection connection, String transactionalId) {
        try (KafkaProducer<byte[], byte[]> producer =
                producer(connection, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId))) {
            producer.initTransactions();
            throw new AssertionError(connection + " could use the transactional id " + transactionalId);
        } catch (TransactionalIdAuthorizationException e) {
            return e;
        }
    }
}
