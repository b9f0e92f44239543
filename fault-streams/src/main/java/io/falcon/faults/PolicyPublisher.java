package io.falcon.faults;

import io.falcon.events.Meta;
import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.core.PolicyRules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the policy YAML (a file, e.g. a mounted ConfigMap), validates it and hands a valid one to the publisher
 * (the compacted policy topic). Re-checked periodically; a changed valid file is published with a new version, an
 * invalid one is rejected with the field named and nothing is published, so the last good policy stays in force.
 */
public final class PolicyPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyPublisher.class);

    private final Path file;
    private final Clock clock;
    private final Consumer<IsolationPolicy> publish;
    private String lastContent = "";

    public PolicyPublisher(Path file, Clock clock, Consumer<IsolationPolicy> publish) {
        this.file = file;
        this.clock = clock;
        this.publish = publish;
    }

    /** Reads the file; publishes it when it changed and is valid. Returns the error when it is not. */
    public Optional<String> check() {
        String content;
        try {
            content = Files.readString(file);
        } catch (IOException e) {
            LOG.error(
                    "cannot read isolation policy file {}: {}; the last good policy stays in force",
                    file,
                    e.getMessage());
            return Optional.of("cannot read " + file + ": " + e.getMessage());
        }
        if (content.equals(lastContent)) {
            return Optional.empty();
        }
        lastContent = content;
        long version = clock.millis();
        PolicyRules.Validated result = PolicyYaml.parse(content, version, Meta.of("fault-streams", clock.instant()));
        if (result instanceof PolicyRules.Invalid invalid) {
            LOG.error(
                    "rejected isolation policy file {}: {}; the last good policy stays in force",
                    file,
                    invalid.message());
            return Optional.of(invalid.message());
        }
        IsolationPolicy policy = ((PolicyRules.Valid) result).policy();
        publish.accept(policy);
        LOG.info("published isolation policy v{} from {} to {}", version, file, Topics.ISOLATION_POLICY.name());
        return Optional.empty();
    }
}
