package io.falcon.cli;

import io.falcon.events.Json;
import io.falcon.events.TerminalText;
import io.falcon.events.Topics;
import io.falcon.events.decision.Decision;
import io.falcon.events.decision.Explanation;
import io.falcon.events.jobs.JobBoard;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code falcon explain JOB_ID}: where a job is, why, who is ahead and what would unblock it. */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = "Explain a job: where it is, why (the decision ledger, falcon.decisions), who is ahead, and what"
                + " would unblock it.")
final class ExplainCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB_ID", description = "the job's id")
    String jobId;

    @Option(names = "--json", description = "print the explanation and the job's decisions as JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Connections connections = FalconCli.connections(spec);
        Map<String, String> row;
        Map<String, String> clusterNames;
        try (Connection connection = connections.database()) {
            row = JobBoard.columns(connection, jobId).orElseThrow(() -> CliException.refused("no job '" + jobId + "'"));
            clusterNames = JobBoard.clusterNames(connection);
        } catch (SQLException e) {
            throw JobCommands.databaseError(connections, e);
        }
        List<Decision> decisions = List.of();
        Optional<String> ledgerNote = Optional.empty();
        try {
            decisions = KafkaTopics.history(connections, Topics.DECISIONS, jobId);
        } catch (CliException | org.apache.kafka.common.KafkaException e) {
            // The row alone still says where the job is: explain what it can and say what is missing.
            ledgerNote = Optional.of(Connections.firstLine(e.getMessage()));
        }
        Explanation explanation = Explanation.of(row, decisions, ledgerNote, clusterNames);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.mapper()
                    .writerWithDefaultPrettyPrinter()
                    .with(TerminalText.JSON_ESCAPES)
                    .writeValueAsString(explanation.json()));
        } else {
            explanation.lines().forEach(line -> out.println(TerminalText.visible(line)));
        }
        out.flush();
        return FalconCli.EXIT_OK;
    }
}
