package io.falcon.cli;

import io.falcon.events.TerminalText;
import io.falcon.events.jobs.JobBoard;
import io.falcon.scheduler.core.JobRequest;
import io.falcon.scheduler.core.RequestValidator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** submit, jobs, show, abort: the jobs table, as the upper components use it. */
final class JobCommands {
    private JobCommands() {}

    static CliException databaseError(Connections connections, SQLException e) {
        return CliException.unreachable(connections.withoutDatabasePasswords(
                "database error at " + connections.dbUrl() + ": " + Connections.firstLine(e.getMessage())));
    }

    @Command(
            name = "submit",
            mixinStandardHelpOptions = true,
            description = "Submit a job: INSERT a Pending row into the jobs table. Prints the job id.")
    static final class Submit implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--id", paramLabel = "ID", description = "job id (default: a new UUID)")
        String id;

        @Option(names = "--actor", required = true, paramLabel = "ACTOR", description = "who submits (fair share)")
        String actor;

        @Option(names = "--name", required = true, paramLabel = "NAME", description = "a name for people")
        String name;

        @Option(
                names = "--tpu-type",
                required = true,
                paramLabel = "TYPE",
                converter = Converters.TpuTypeName.class,
                description = "TPU generation: v5e, v5p, v6e or v7x")
        String tpuType;

        @Option(
                names = "--topology",
                required = true,
                paramLabel = "SHAPE",
                converter = Converters.Topology.class,
                description = "slice shape such as 2x4 or 4x4x4 (chips a multiple of 4)")
        String topology;

        @Option(
                names = "--spec",
                required = true,
                paramLabel = "JSON|@FILE",
                description = "job spec JSON {\"image\":..,\"command\":[..],\"args\":[..],\"env\":{..}}, or @FILE")
        String specJson;

        @Option(
                names = "--supply-mode",
                paramLabel = "MODE",
                converter = Converters.Supply.class,
                description = "reservation, on-demand or flex-start (default: the cluster's reservation if any)")
        String supplyMode;

        @Option(
                names = "--timeout",
                paramLabel = "DURATION",
                converter = Converters.TimeoutSeconds.class,
                description = "execution timeout: seconds, or 90m, 2h, 1d (at most 30 days)")
        Long timeoutSeconds;

        @Option(
                names = "--priority",
                paramLabel = "N",
                description = "priority, -1000 to 1000, higher first within a queue (default: the spec's priority,"
                        + " else 0); a waiting job gains one level per falcon.scheduler.priority-aging")
        Long priority;

        @Override
        public Integer call() {
            String jobId = id == null ? UUID.randomUUID().toString() : id;
            if (jobId.isBlank() || jobId.length() > 64) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--id': must be 1 to 64 characters, got '" + jobId + "'");
            }
            String specText = readSpec();
            RequestValidator.Result result = RequestValidator.validate(new JobRequest(
                    jobId,
                    actor,
                    name,
                    tpuType,
                    topology,
                    specText,
                    Optional.ofNullable(supplyMode),
                    Optional.ofNullable(timeoutSeconds),
                    Instant.now(),
                    Optional.ofNullable(priority)));
            if (result instanceof RequestValidator.Invalid invalid) {
                String option = invalid.field().startsWith("spec")
                        ? "--spec"
                        : "--" + invalid.field().replace('_', '-');
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '" + option + "': " + invalid.field() + " " + invalid.problem());
            }
            Connections connections = FalconCli.connections(spec);
            try (Connection connection = connections.database()) {
                JobSubmission.submit(
                        connection,
                        new JobSubmission.Request(
                                jobId,
                                actor,
                                name,
                                tpuType,
                                topology,
                                specText,
                                Optional.ofNullable(supplyMode),
                                Optional.ofNullable(timeoutSeconds),
                                Optional.ofNullable(priority)));
            } catch (SQLIntegrityConstraintViolationException e) {
                throw CliException.refused("a job with id '" + jobId + "' already exists");
            } catch (SQLException e) {
                if ("23000".equals(e.getSQLState())) {
                    throw CliException.refused("a job with id '" + jobId + "' already exists");
                }
                throw databaseError(connections, e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(TerminalText.visible(jobId));
            out.flush();
            return FalconCli.EXIT_OK;
        }

        private String readSpec() {
            if (!specJson.startsWith("@")) {
                return specJson;
            }
            Path file = Path.of(specJson.substring(1));
            try {
                return Files.readString(file);
            } catch (IOException e) {
                throw new ParameterException(
                        spec.commandLine(), "Invalid value for option '--spec': cannot read " + file + " (" + e + ")");
            }
        }
    }

    @Command(
            name = "jobs",
            mixinStandardHelpOptions = true,
            description = "List jobs, newest first, with Status / Reason / Message.")
    static final class Jobs implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(
                names = "--status",
                paramLabel = "STATUS",
                converter = Converters.JobStatus.class,
                description = "only jobs in this status: Pending, Running, Succeeded, Failed, Aborting, Aborted")
        String status;

        @Option(names = "--actor", paramLabel = "ACTOR", description = "only this actor's jobs")
        String actor;

        @Option(names = "--cluster", paramLabel = "CLUSTER_ID", description = "only jobs placed on this cluster")
        String cluster;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "at most N rows (default 50)")
        int limit;

        @Override
        public Integer call() {
            if (limit < 1 || limit > 10_000) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--limit': must be between 1 and 10000, got " + limit);
            }
            Connections connections = FalconCli.connections(spec);
            List<JobBoard.JobView> jobs;
            Map<String, String> clusterNames;
            try (Connection connection = connections.database()) {
                clusterNames = JobBoard.clusterNames(connection);
                jobs = JobBoard.read(
                        connection,
                        new JobBoard.Filter(
                                Optional.ofNullable(status),
                                Optional.ofNullable(actor),
                                Optional.ofNullable(cluster),
                                Optional.empty(),
                                limit));
            } catch (SQLException e) {
                throw databaseError(connections, e);
            }
            Table table = new Table("ID", "ACTOR", "NAME", "STATUS", "REASON", "CLUSTER", "MESSAGE");
            for (JobBoard.JobView job : jobs) {
                table.row(
                        job.id(),
                        job.actor(),
                        job.name(),
                        job.status(),
                        job.reason().orElse(""),
                        job.clusterId()
                                .map(id -> JobBoard.clusterLabel(id, clusterNames))
                                .orElse(""),
                        job.message());
            }
            table.print(spec.commandLine().getOut());
            return FalconCli.EXIT_OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show every column of one job.")
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "JOB_ID", description = "the job's id")
        String jobId;

        @Override
        public Integer call() {
            Connections connections = FalconCli.connections(spec);
            Map<String, String> columns;
            try (Connection connection = connections.database()) {
                columns = JobBoard.columns(connection, jobId)
                        .orElseThrow(() -> CliException.refused("no job '" + jobId + "'"));
            } catch (SQLException e) {
                throw databaseError(connections, e);
            }
            int width = columns.keySet().stream().mapToInt(String::length).max().orElse(0);
            PrintWriter out = spec.commandLine().getOut();
            columns.forEach((column, value) -> out.println(TerminalText.visible(column) + ":"
                    + " ".repeat(width - column.length() + 1) + TerminalText.visible(value)));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }

    @Command(
            name = "abort",
            mixinStandardHelpOptions = true,
            description = "Abort a job: UPDATE its row to status Aborting (Falcon then deletes its Job and node pool).")
    static final class Abort implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "JOB_ID", description = "the job's id")
        String jobId;

        @Override
        public Integer call() {
            Connections connections = FalconCli.connections(spec);
            try (Connection connection = connections.database()) {
                if (!JobSubmission.abort(connection, jobId)) {
                    Optional<JobBoard.JobView> job = JobBoard.find(connection, jobId);
                    if (job.isEmpty()) {
                        throw CliException.refused("no job '" + jobId + "'");
                    }
                    throw CliException.refused("job '" + jobId + "' is "
                            + job.get().status() + ": only Pending and Running jobs can be aborted");
                }
            } catch (SQLException e) {
                throw databaseError(connections, e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println("aborting " + TerminalText.visible(jobId));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }
}
