package io.falcon.embedded.containers;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a test class that needs Docker when no daemon answers, saying so in the report and on stdout (next to the
 * Testcontainers extension's own {@code disabledWithoutDocker}, whose message names no test), so that a run of the
 * mysql8 profile without Docker reads "skipped: no Docker daemon" rather than a silent success.
 */
public final class RequiresDocker implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (Mysql8Containers.dockerAvailable()) {
            return ConditionEvaluationResult.enabled("Docker daemon available");
        }
        String reason = "skipped: no Docker daemon (" + context.getDisplayName() + " runs on "
                + Mysql8Containers.MYSQL_IMAGE + " and " + Mysql8Containers.KAFKA_IMAGE
                + " in Docker; start a daemon and run mvn -B verify -Pmysql8)";
        System.out.println(reason);
        return ConditionEvaluationResult.disabled(reason);
    }
}
