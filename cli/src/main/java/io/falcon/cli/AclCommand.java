package io.falcon.cli;

import io.falcon.events.TerminalText;
import io.falcon.events.config.CdcIngestKeys;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.FaultStreamsKeys;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.config.StatusSinkKeys;
import io.falcon.events.security.KafkaAccess;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Prints (or creates, with --apply) the Kafka ACLs that give each component exactly what it needs
 * ({@link KafkaAccess}). The application ids, groups and cdc-ingest topics are the settings' (environment), so the
 * ACLs follow a deployment that renamed them.
 */
@Command(
        name = "acls",
        mixinStandardHelpOptions = true,
        description = {
            "Print the least-privilege Kafka ACLs of every component, or create them (--apply; needs a principal that",
            "may alter ACLs). Principals default to User:falcon-COMPONENT."
        })
final class AclCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--apply", description = "create the ACLs on the broker (existing ones are left as they are)")
    boolean apply;

    @Option(
            names = "--principal",
            paramLabel = "COMPONENT=PRINCIPAL",
            description = "the principal of a component, e.g. --principal executor=User:falcon-exec (repeatable)")
    Map<String, String> principals = new LinkedHashMap<>();

    @Override
    public Integer call() {
        for (String component : principals.keySet()) {
            if (!KafkaAccess.COMPONENTS.contains(component)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--principal': no component " + component + " (one of "
                                + String.join(", ", KafkaAccess.COMPONENTS) + ")");
            }
        }
        Connections connections = FalconCli.connections(spec);
        List<KafkaAccess.Access> plan =
                KafkaAccess.plan(names(connections.settings().values()), principals);
        List<AclBinding> bindings = new ArrayList<>();
        PrintWriter out = spec.commandLine().getOut();
        for (KafkaAccess.Access access : plan) {
            out.println(TerminalText.visible("# " + access.component()));
            for (KafkaAccess.Grant grant : access.grants()) {
                AclBinding binding = binding(access.principal(), grant);
                bindings.add(binding);
                out.println(TerminalText.visible("ALLOW " + access.principal() + " " + grant.operation() + " "
                        + grant.resource() + " " + grant.name() + " " + grant.pattern()));
            }
        }
        if (apply) {
            try (Admin admin = Admin.create(connections.kafka().properties())) {
                admin.createAcls(bindings).all().get(Connections.KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw CliException.unreachable(
                        "cannot create the ACLs: " + Connections.firstLine(String.valueOf(e.getCause())));
            } catch (TimeoutException e) {
                throw CliException.unreachable(
                        "cannot create the ACLs: no answer from Kafka at " + connections.bootstrapServers());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw CliException.unreachable("interrupted while creating the ACLs");
            }
            out.println("created " + bindings.size() + " ACL entries");
        }
        out.flush();
        return FalconCli.EXIT_OK;
    }

    /** The names a deployment may have changed, from the same settings the components read. */
    static KafkaAccess.Names names(Map<String, String> raw) {
        return new KafkaAccess.Names(
                SchedulerKeys.APPLICATION_ID.readFrom(raw),
                FaultStreamsKeys.APPLICATION_ID.readFrom(raw),
                ExecutorKeys.GROUP_ID.readFrom(raw),
                StatusSinkKeys.GROUP_ID.readFrom(raw),
                CdcIngestKeys.ENGINE_NAME.readFrom(raw),
                CdcIngestKeys.OFFSETS_TOPIC.readFrom(raw),
                CdcIngestKeys.SCHEMA_HISTORY_TOPIC.readFrom(raw));
    }

    /** Kafka's form of a grant: the enums of KafkaAccess carry Kafka's names. */
    static AclBinding binding(String principal, KafkaAccess.Grant grant) {
        return new AclBinding(
                new ResourcePattern(
                        ResourceType.valueOf(grant.resource().name()),
                        grant.name(),
                        PatternType.valueOf(grant.pattern().name())),
                new AccessControlEntry(
                        principal, "*", AclOperation.valueOf(grant.operation().name()), AclPermissionType.ALLOW));
    }
}
