package io.falcon.cli;

import io.falcon.events.TerminalText;
import io.falcon.events.Topics;
import io.falcon.events.status.TaskStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Follows falcon.task-status and prints every transition, like the upper components would see it. */
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        description = "Follow falcon.task-status and print each Status / Reason / Message transition (Ctrl-C stops).")
final class WatchCommand implements Callable<Integer> {
    static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    @Spec
    CommandSpec spec;

    @Option(
            names = {"--job", "-j"},
            paramLabel = "JOB_ID",
            description = "only this job's transitions")
    String jobId;

    @Option(names = "--from-beginning", description = "replay the topic's retained history first")
    boolean fromBeginning;

    @Option(names = "--count", paramLabel = "N", description = "stop after N transitions")
    Integer count;

    @Option(names = "--until-final", description = "with --job: stop when the job is Succeeded, Failed or Aborted")
    boolean untilFinal;

    @Override
    public Integer call() {
        if (count != null && count < 1) {
            throw new ParameterException(
                    spec.commandLine(), "Invalid value for option '--count': must be at least 1, got " + count);
        }
        if (untilFinal && jobId == null) {
            throw new ParameterException(spec.commandLine(), "--until-final needs --job JOB_ID");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Connections connections = FalconCli.connections(spec);
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaTopics.assignAll(connections, Topics.TASK_STATUS.name())) {
            Thread main = Thread.currentThread();
            Thread hook = new Thread(consumer::wakeup, "falcon-watch-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            if (fromBeginning) {
                consumer.seekToBeginning(consumer.assignment());
            } else {
                consumer.seekToEnd(consumer.assignment());
                consumer.assignment().forEach(p -> consumer.position(p, Connections.KAFKA_TIMEOUT));
            }
            out.println(TerminalText.visible("watching " + Topics.TASK_STATUS.name()
                    + (jobId == null ? "" : " for job " + jobId) + " on " + connections.bootstrapServers()));
            out.flush();
            int printed = 0;
            try {
                while (!main.isInterrupted()) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        if (record.value() == null) {
                            continue;
                        }
                        TaskStatus status;
                        try {
                            status = Topics.TASK_STATUS.valueSerde().fromBytes(record.value());
                        } catch (SerializationException e) {
                            err.println(
                                    TerminalText.error("falcon: skipping undecodable record at " + record.topic() + "-"
                                            + record.partition() + "@" + record.offset() + ": "
                                            + Connections.firstLine(e.getMessage())));
                            continue;
                        }
                        if (jobId != null && !jobId.equals(status.jobId())) {
                            continue;
                        }
                        out.println(line(status));
                        out.flush();
                        printed++;
                        boolean last = untilFinal && status.status().isTerminal();
                        if (last || (count != null && printed >= count)) {
                            return FalconCli.EXIT_OK;
                        }
                    }
                }
            } catch (WakeupException e) {
                return FalconCli.EXIT_OK;
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the JVM is stopping: the hook already ran
                }
            }
        }
        return FalconCli.EXIT_OK;
    }

    /** 14:21:03  job-42  Pending/Provisioning  message  [cluster=..., pool=...], control characters escaped. */
    static String line(TaskStatus status) {
        StringBuilder b = new StringBuilder();
        b.append(TIME.format(status.meta().occurredAt()))
                .append("  ")
                .append(status.jobId())
                .append("  ")
                .append(status.status().toString())
                .append(status.reason().map(r -> "/" + r).orElse(""));
        if (status.message() != null && !status.message().isEmpty()) {
            b.append("  ").append(status.message());
        }
        status.clusterId().ifPresent(c -> b.append("  cluster=").append(c));
        status.nodePoolName().ifPresent(p -> b.append(" pool=").append(p));
        return TerminalText.visible(b.toString());
    }
}
