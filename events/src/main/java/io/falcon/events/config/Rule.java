package io.falcon.events.config;

import java.util.List;
import java.util.function.Predicate;

/**
 * A condition over several settings of one component (e.g. two topic names must differ). It is checked only when
 * each of its settings parsed, and a broken rule is reported with the other problems.
 */
public record Rule(List<Setting<?>> settings, String description, Predicate<SettingValues> holds) {
    public Rule {
        settings = List.copyOf(settings);
    }
}
