package io.falcon.cli;

import io.falcon.events.ResourceNames;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * What an actor is called on the edge clusters, for the one-time provisioning of its identity and Secrets
 * (docs/deploy.md): nothing is read or written, the names are computed as the executor computes them.
 */
@Command(
        name = "actors",
        mixinStandardHelpOptions = true,
        description = {
            "Print each actor's names on the edge clusters: its Kubernetes service account (with",
            "falcon.executor.job.identity=actor), its folder in a cluster's bucket, and the prefix of the",
            "Secrets its jobs' spec.env may reference (docs/deploy.md). Reads and writes nothing."
        })
final class ActorsCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "ACTOR", description = "actor, exactly as the jobs rows carry it")
    List<String> actors;

    @Override
    public Integer call() {
        Table table = new Table("ACTOR", "SERVICE ACCOUNT", "BUCKET FOLDER", "SECRETS");
        for (String actor : actors) {
            String key = ResourceNames.actorKey(actor);
            table.row(actor, key, "actors/" + key + "/", key + ".<name>");
        }
        table.print(spec.commandLine().getOut());
        return FalconCli.EXIT_OK;
    }
}
