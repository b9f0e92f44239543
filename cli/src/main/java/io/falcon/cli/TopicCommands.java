package io.falcon.cli;

import io.falcon.events.TopicProvisioner;
import io.falcon.events.Topics;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Creates the catalog's topics (compacted where the catalog says so); existing topics are left alone. */
@Command(
        name = "topics",
        mixinStandardHelpOptions = true,
        description = "Create Falcon's topics.",
        subcommands = {TopicCommands.Create.class})
final class TopicCommands implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: create");
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Create every topic of the catalog that does not exist yet.")
    static final class Create implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--partitions", paramLabel = "N", defaultValue = "3", description = "partitions (default 3)")
        int partitions;

        @Option(
                names = "--replication-factor",
                paramLabel = "N",
                defaultValue = "3",
                description = "replicas (default 3; 1 for a single broker)")
        short replicationFactor;

        @Option(
                names = "--decisions-retention",
                paramLabel = "DURATION",
                defaultValue = "7d",
                converter = Converters.DurationConverter.class,
                description = "how long falcon.decisions keeps the latest decision of each job (default 7d)")
        java.time.Duration decisionsRetention;

        @Option(
                names = "--decisions-full-history",
                paramLabel = "DURATION",
                defaultValue = "1d",
                converter = Converters.DurationConverter.class,
                description = "how long falcon.decisions keeps every decision before compaction (default 1d)")
        java.time.Duration decisionsFullHistory;

        @Override
        public Integer call() {
            if (partitions < 1 || partitions > 1000) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--partitions': must be between 1 and 1000, got " + partitions);
            }
            if (replicationFactor < 1) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--replication-factor': must be at least 1, got "
                                + replicationFactor);
            }
            TopicProvisioner.LedgerRetention ledger;
            try {
                ledger = new TopicProvisioner.LedgerRetention(decisionsRetention, decisionsFullHistory);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            Connections connections = FalconCli.connections(spec);
            try {
                TopicProvisioner.ensureAll(connections.kafka(), partitions, replicationFactor, ledger);
            } catch (IllegalStateException e) {
                throw CliException.unreachable(Connections.firstLine(e.getMessage()) + ": "
                        + Connections.firstLine(String.valueOf(e.getCause())));
            }
            PrintWriter out = spec.commandLine().getOut();
            Topics.all().forEach(t -> out.println(t.name() + (t.compacted() ? " (compacted)" : "")));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }
}
