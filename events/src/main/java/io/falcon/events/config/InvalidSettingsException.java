package io.falcon.events.config;

import java.util.List;
import java.util.stream.Collectors;

/** Every problem of a component's settings at once, so one restart fixes them all. */
public final class InvalidSettingsException extends IllegalArgumentException {
    private final String component;
    private final List<Problem> problems;

    public InvalidSettingsException(String component, List<Problem> problems) {
        super("invalid configuration of " + component + " (" + problems.size()
                + (problems.size() == 1 ? " problem" : " problems") + "; see docs/configuration.md):"
                + problems.stream().map(p -> "\n  " + p).collect(Collectors.joining()));
        this.component = component;
        this.problems = List.copyOf(problems);
    }

    public String component() {
        return component;
    }

    public List<Problem> problems() {
        return problems;
    }

    /** The keys named by the problems, in order. */
    public List<String> keys() {
        return problems.stream().map(Problem::key).toList();
    }
}
