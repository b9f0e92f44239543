package io.falcon.cli;

import io.falcon.events.Meta;
import io.falcon.events.TerminalText;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.jobs.JobBoard;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Manual device isolation: the compacted falcon.isolation state and release commands to fault-streams. */
@Command(
        name = "isolation",
        mixinStandardHelpOptions = true,
        description = "List and release isolated devices.",
        subcommands = {IsolationCommands.ListIsolated.class, IsolationCommands.Release.class})
final class IsolationCommands implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: list or release");
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List isolated devices (reads the compacted falcon.isolation topic to its end).")
    static final class ListIsolated implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--cluster", paramLabel = "CLUSTER_ID", description = "only this cluster")
        String cluster;

        @Override
        public Integer call() {
            Connections connections = FalconCli.connections(spec);
            Map<String, NodeIsolation> nodes = KafkaTopics.snapshot(connections, Topics.ISOLATION);
            Map<String, String> clusterNames = connections.clusterNamesIfConfigured();
            Table table = new Table("CLUSTER", "NODE", "DEVICE", "FAULT_CODE", "LEVEL", "ISOLATED_AT");
            nodes.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
                String[] clusterNode = NodeIsolation.splitKey(entry.getKey());
                if (cluster != null && !cluster.equals(clusterNode[0])) {
                    return;
                }
                entry.getValue()
                        .detail()
                        .forEach((device, isolations) -> isolations.forEach(isolation -> table.row(
                                JobBoard.clusterLabel(clusterNode[0], clusterNames),
                                clusterNode[1],
                                device,
                                isolation.faultCode(),
                                isolation.faultLevel(),
                                Instant.ofEpochMilli(isolation.lastSeparateTime())
                                        .toString())));
            });
            PrintWriter out = spec.commandLine().getOut();
            table.print(out);
            return FalconCli.EXIT_OK;
        }
    }

    @Command(
            name = "release",
            mixinStandardHelpOptions = true,
            description = "Release an isolated device: fault-streams clears its counters and the executor removes it"
                    + " from clusterd-manual-info-cm.")
    static final class Release implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        DeviceAddress address;

        @Option(names = "--reason", paramLabel = "TEXT", description = "why (kept in the verdict ledger)")
        String reason;

        @Override
        public Integer call() {
            address.validate(spec);
            String why = reason != null
                    ? reason
                    : "released by " + System.getProperty("user.name", "an operator") + " with the falcon CLI";
            IsolationCommand release = new IsolationCommand.Release(
                    Meta.of("falcon-cli", Instant.now()), address.cluster, address.node, address.device, why);
            KafkaTopics.send(
                    FalconCli.connections(spec),
                    Topics.ISOLATION_COMMANDS,
                    List.of(Map.entry(address.cluster, release)));
            PrintWriter out = spec.commandLine().getOut();
            out.println(TerminalText.visible("release of " + address + " sent to " + Topics.ISOLATION_COMMANDS.name()));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }
}
