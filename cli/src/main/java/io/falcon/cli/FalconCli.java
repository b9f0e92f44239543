package io.falcon.cli;

import io.falcon.events.Settings;
import io.falcon.events.TerminalText;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The falcon command line: submit and follow jobs the way the upper components do (rows of the jobs table, the
 * falcon.task-status topic), manage the clusters registry, and operate device isolation. Exit codes: 0 done,
 * 1 refused (no such job, already final), 2 bad arguments or the database / Kafka cannot be reached.
 */
@Command(
        name = "falcon",
        mixinStandardHelpOptions = true,
        version = "falcon 0.1.0",
        description = "Drive Falcon: submit, list, show, abort and watch jobs; manage clusters and device isolation.",
        subcommands = {
            JobCommands.Submit.class,
            JobCommands.Jobs.class,
            JobCommands.Show.class,
            ExplainCommand.class,
            JobCommands.Abort.class,
            WatchCommand.class,
            ClusterCommands.class,
            IsolationCommands.class,
            RetryCommands.class,
            FaultCommands.class,
            TopicCommands.class,
            AclCommand.class,
            ActorsCommand.class,
            CommandLine.HelpCommand.class
        },
        footer = {
            "",
            "Connections: --db-url, --db-user, --db-password-file, --bootstrap-servers, or the",
            "environment FALCON_DB_URL, FALCON_DB_USER, FALCON_DB_PASSWORD and",
            "FALCON_KAFKA_BOOTSTRAP_SERVERS. Kafka TLS/SASL: FALCON_KAFKA_SECURITY_PROTOCOL,",
            "FALCON_KAFKA_SASL_* and FALCON_KAFKA_SSL_* (docs/configuration.md; secrets never as options).",
            "Exit codes: 0 done, 1 refused, 2 bad arguments or database/Kafka unreachable."
        })
public final class FalconCli implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_REFUSED = 1;
    public static final int EXIT_UNREACHABLE = 2;

    @Mixin
    Connections connections = new Connections();

    @CommandLine.Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "falcon-cli-logback.xml");
        }
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        System.exit(run(Settings.fromEnvironment(), out, err, args));
    }

    /** Runs one command line with the given settings (for the connection defaults) and streams. */
    public static int run(Settings settings, PrintWriter out, PrintWriter err, String... args) {
        CommandLine commandLine = commandLine(settings);
        commandLine.setOut(out);
        commandLine.setErr(err);
        try {
            return commandLine.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The configured picocli command line (no @-files: --spec @FILE is ours). */
    public static CommandLine commandLine(Settings settings) {
        FalconCli cli = new FalconCli();
        cli.connections.settings(settings);
        CommandLine commandLine = new CommandLine(cli);
        // Every subcommand offers --version (mixinStandardHelpOptions) but declares none: without this,
        // 'falcon jobs submit --version' printed nothing and exited 0 (found by CliArgumentFuzzTest).
        String[] version = commandLine.getCommandSpec().version();
        withSubcommands(commandLine, sub -> sub.getCommandSpec().version(version));
        commandLine.setExpandAtFiles(false);
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setParameterExceptionHandler((ex, args) -> {
            CommandLine failed = ex.getCommandLine();
            PrintWriter err = failed.getErr();
            err.println("falcon: " + TerminalText.error(ex.getMessage()));
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
            err.println("Try '" + failed.getCommandSpec().qualifiedName() + " --help' for more information.");
            err.flush();
            return failed.getCommandSpec().exitCodeOnInvalidInput();
        });
        commandLine.setExecutionExceptionHandler((ex, failed, parseResult) -> {
            PrintWriter err = failed.getErr();
            if (ex instanceof CliException cli2) {
                err.println("falcon: " + TerminalText.error(cli2.getMessage()));
                err.flush();
                return cli2.exitCode();
            }
            if (ex instanceof KafkaException || ex instanceof org.apache.kafka.common.errors.TimeoutException) {
                err.println(
                        "falcon: cannot reach Kafka: " + TerminalText.error(Connections.firstLine(ex.getMessage())));
                err.flush();
                return EXIT_UNREACHABLE;
            }
            throw ex;
        });
        return commandLine;
    }

    private static void withSubcommands(CommandLine command, java.util.function.Consumer<CommandLine> action) {
        command.getSubcommands().values().forEach(sub -> {
            action.accept(sub);
            withSubcommands(sub, action);
        });
    }

    /** The root command's connection settings, from any subcommand. */
    static Connections connections(CommandSpec spec) {
        return ((FalconCli) spec.root().userObject()).connections;
    }
}
