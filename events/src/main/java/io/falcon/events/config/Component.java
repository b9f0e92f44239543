package io.falcon.events.config;

import java.util.List;

/**
 * The settings one component reads: shared ones (Kafka, database, ops port) are the same Setting objects in every
 * component that reads them, so each is declared once.
 */
public record Component(
        String name, String description, List<Setting<?>> settings, List<Passthrough> passthroughs, List<Rule> rules) {
    public Component {
        settings = List.copyOf(settings);
        passthroughs = List.copyOf(passthroughs);
        rules = List.copyOf(rules);
        if (settings.stream().map(Setting::key).distinct().count() != settings.size()) {
            throw new IllegalArgumentException(name + " lists a setting twice");
        }
    }

    public boolean reads(Setting<?> setting) {
        return settings.contains(setting);
    }
}
