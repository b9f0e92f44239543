package io.falcon.cli;

import io.falcon.events.TerminalText;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The clusters registry (owned by Falcon): adding an edge cluster is an IAM grant plus one row here. */
@Command(
        name = "clusters",
        mixinStandardHelpOptions = true,
        description = "Manage the edge clusters registry.",
        subcommands = {ClusterCommands.Add.class, ClusterCommands.ListClusters.class, ClusterCommands.SetStatus.class})
final class ClusterCommands implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: add, list or set-status");
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Register an edge cluster (INSERT into clusters). Grant the IAM role first: docs/deploy.md.")
    static final class Add implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--id", paramLabel = "ID", description = "cluster id (default: a new UUID)")
        String id;

        @Option(names = "--name", required = true, paramLabel = "NAME", description = "GKE cluster name")
        String name;

        @Option(
                names = "--project",
                required = true,
                paramLabel = "PROJECT",
                description = "GCP project of the cluster")
        String project;

        @Option(
                names = "--location",
                required = true,
                paramLabel = "LOCATION",
                description = "GKE location (region or zone), e.g. us-central1")
        String location;

        @Option(
                names = "--tpu-type",
                required = true,
                paramLabel = "TYPE",
                converter = Converters.TpuTypeName.class,
                description = "TPU generation the cluster serves: v5e, v5p, v6e or v7x")
        String tpuType;

        @Option(
                names = "--gcs-bucket",
                required = true,
                paramLabel = "BUCKET",
                description = "bucket mounted at /gcs in every job (logs go to gs://BUCKET/logs/JOB_ID/)")
        String gcsBucket;

        @Option(
                names = "--default-reservation",
                paramLabel = "RESERVATION",
                description = "Compute reservation used for supply mode reservation")
        String defaultReservation;

        @Option(
                names = "--k8s-service-account",
                paramLabel = "NAME",
                description = "Kubernetes service account the cluster's job pods run as: through Workload Identity the"
                        + " identity their GCS FUSE volume uses for the bucket (default: the namespace's default)")
        String k8sServiceAccount;

        @Option(
                names = "--status",
                paramLabel = "STATUS",
                defaultValue = "active",
                converter = Converters.ClusterStatus.class,
                description = "active (default), maintenance or offline")
        String status;

        @Override
        public Integer call() {
            String clusterId = id == null ? UUID.randomUUID().toString() : id;
            if (clusterId.isBlank() || clusterId.length() > 64) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--id': must be 1 to 64 characters, got '" + clusterId + "'");
            }
            Connections connections = FalconCli.connections(spec);
            try (Connection connection = connections.database();
                    // the column is named only when given, so a database before migration V4 still takes the rest
                    PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO clusters (id, name, project, location, tpu_type, gcs_bucket, default_reservation,"
                                    + " status" + (k8sServiceAccount == null ? "" : ", k8s_service_account")
                                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?" + (k8sServiceAccount == null ? "" : ", ?")
                                    + ")")) {
                insert.setString(1, clusterId);
                insert.setString(2, name);
                insert.setString(3, project);
                insert.setString(4, location);
                insert.setString(5, tpuType);
                insert.setString(6, gcsBucket);
                insert.setString(7, defaultReservation);
                insert.setString(8, status);
                if (k8sServiceAccount != null) {
                    insert.setString(9, k8sServiceAccount);
                }
                insert.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                    throw CliException.refused("a cluster with id '" + clusterId + "' or named " + project + "/"
                            + location + "/" + name + " is already registered");
                }
                if ("42S02".equals(e.getSQLState())) {
                    throw CliException.refused("there is no clusters table yet: start the status-sink once, it"
                            + " applies the migration");
                }
                throw JobCommands.databaseError(connections, e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(TerminalText.visible(clusterId));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List registered clusters.")
    static final class ListClusters implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(
                names = "--tpu-type",
                paramLabel = "TYPE",
                converter = Converters.TpuTypeName.class,
                description = "only clusters of this TPU type")
        String tpuType;

        @Override
        public Integer call() {
            Connections connections = FalconCli.connections(spec);
            Table table = new Table("ID", "NAME", "PROJECT", "LOCATION", "TPU_TYPE", "STATUS", "RESERVATION", "BUCKET");
            try (Connection connection = connections.database();
                    PreparedStatement select = connection.prepareStatement(
                            "SELECT id, name, project, location, tpu_type, status, default_reservation, gcs_bucket"
                                    + " FROM clusters WHERE (? IS NULL OR tpu_type = ?) ORDER BY tpu_type, project, location,"
                                    + " name")) {
                select.setString(1, tpuType);
                select.setString(2, tpuType);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        table.row(
                                rows.getString(1),
                                rows.getString(2),
                                rows.getString(3),
                                rows.getString(4),
                                rows.getString(5),
                                rows.getString(6),
                                rows.getString(7),
                                rows.getString(8));
                    }
                }
            } catch (SQLException e) {
                throw JobCommands.databaseError(connections, e);
            }
            table.print(spec.commandLine().getOut());
            return FalconCli.EXIT_OK;
        }
    }

    @Command(
            name = "set-status",
            mixinStandardHelpOptions = true,
            description = "Set a cluster active, maintenance (no new jobs; waiting jobs move) or offline.")
    static final class SetStatus implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "CLUSTER_ID", description = "the cluster's id")
        String clusterId;

        @Parameters(
                index = "1",
                paramLabel = "STATUS",
                converter = Converters.ClusterStatus.class,
                description = "active, maintenance or offline")
        String status;

        @Override
        public Integer call() {
            Connections connections = FalconCli.connections(spec);
            try (Connection connection = connections.database();
                    PreparedStatement update =
                            connection.prepareStatement("UPDATE clusters SET status = ? WHERE id = ?")) {
                update.setString(1, status);
                update.setString(2, clusterId);
                if (update.executeUpdate() == 0) {
                    try (PreparedStatement exists =
                            connection.prepareStatement("SELECT status FROM clusters WHERE id = ?")) {
                        exists.setString(1, clusterId);
                        try (ResultSet row = exists.executeQuery()) {
                            if (!row.next()) {
                                throw CliException.refused("no cluster '" + clusterId + "'");
                            }
                        }
                    }
                }
            } catch (SQLException e) {
                throw JobCommands.databaseError(connections, e);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(TerminalText.visible(clusterId + " is " + status));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }
}
