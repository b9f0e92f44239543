package io.falcon.cli;

import io.falcon.events.TerminalText;
import io.falcon.events.Topics;
import io.falcon.events.control.RetrySwitch;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The installation-wide switch of automatic retries ({@link RetrySwitch} on falcon.scheduler.controls): {@code falcon
 * retries} shows it, {@code falcon retries off|on --reason TEXT} switches it. The scheduler applies a switch in the
 * step that reads it, and keeps it until the next one.
 */
@Command(
        name = "retries",
        mixinStandardHelpOptions = true,
        description = "Show or switch automatic retries of infrastructure failures for the whole installation:"
                + " off stops every further attempt at once (a job waiting to run again ends Failed), on lets them"
                + " run again as each job's retry policy says.")
final class RetryCommands implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(
            arity = "0..1",
            paramLabel = "on|off",
            description = "switch retries on or off; without it, show the switch")
    String state;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why (shown in the Message of every job it ends)")
    String reason;

    @Override
    public Integer call() {
        Connections connections = FalconCli.connections(spec);
        PrintWriter out = spec.commandLine().getOut();
        if (state == null) {
            Optional<RetrySwitch> held = Optional.ofNullable(
                    KafkaTopics.snapshot(connections, Topics.SCHEDULER_CONTROLS).get(RetrySwitch.KEY));
            out.println(TerminalText.visible(held.map(s -> "retries are " + s.told())
                    .orElse("retries were never switched: falcon.scheduler.retry.enabled decides")));
            out.flush();
            return FalconCli.EXIT_OK;
        }
        if (!state.equals("on") && !state.equals("off")) {
            throw new ParameterException(spec.commandLine(), "expected on or off, not '" + state + "'");
        }
        if (reason != null && reason.length() > RetrySwitch.MAX_TEXT) {
            throw new ParameterException(
                    spec.commandLine(), "--reason is longer than " + RetrySwitch.MAX_TEXT + " characters");
        }
        RetrySwitch value = new RetrySwitch(
                state.equals("on"), System.getProperty("user.name", ""), reason == null ? "" : reason, Instant.now());
        KafkaTopics.send(connections, Topics.SCHEDULER_CONTROLS, List.of(Map.entry(RetrySwitch.KEY, value)));
        out.println(TerminalText.visible("retries " + value.told() + " (sent to " + Topics.SCHEDULER_CONTROLS.name()
                + "; the scheduler applies it in its next step)"));
        out.flush();
        return FalconCli.EXIT_OK;
    }
}
