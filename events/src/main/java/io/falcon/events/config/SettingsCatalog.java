package io.falcon.events.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every setting of every Falcon component, declared once ({@link SharedKeys} and one class per component). What
 * "unknown" means is decided here: a key no component declares. A key another component reads is not unknown, since
 * k8s/configmaps.yaml gives every component the same falcon-common ConfigMap (e.g. the executor gets
 * FALCON_KAFKA_REPLICATION_FACTOR, which it does not read).
 */
public final class SettingsCatalog {
    /** In documentation order. */
    public static final List<Component> COMPONENTS = List.of(
            CdcIngestKeys.COMPONENT,
            SchedulerKeys.COMPONENT,
            ExecutorKeys.COMPONENT,
            StatusSinkKeys.COMPONENT,
            FaultStreamsKeys.COMPONENT,
            ConsoleKeys.COMPONENT,
            CliKeys.COMPONENT,
            LauncherKeys.COMPONENT);

    private static final Map<String, Setting<?>> BY_KEY = index();

    private SettingsCatalog() {}

    private static Map<String, Setting<?>> index() {
        Map<String, Setting<?>> byKey = new LinkedHashMap<>();
        Map<String, String> envNames = new LinkedHashMap<>();
        for (Component component : COMPONENTS) {
            for (Setting<?> setting : component.settings()) {
                Setting<?> known = byKey.putIfAbsent(setting.key(), setting);
                if (known != null && known != setting) {
                    throw new IllegalStateException(setting.key() + " is declared twice: share one declaration");
                }
                String other = envNames.putIfAbsent(setting.envName(), setting.key());
                if (other != null && !other.equals(setting.key())) {
                    throw new IllegalStateException(other + " and " + setting.key() + " have the same environment"
                            + " name " + setting.envName());
                }
            }
        }
        return Map.copyOf(byKey);
    }

    /** Every declared setting once, in documentation order. */
    public static List<Setting<?>> settings() {
        return COMPONENTS.stream()
                .flatMap(c -> c.settings().stream())
                .distinct()
                .toList();
    }

    public static List<Passthrough> passthroughs() {
        return COMPONENTS.stream()
                .flatMap(c -> c.passthroughs().stream())
                .distinct()
                .toList();
    }

    public static Optional<Setting<?>> byKey(String key) {
        return Optional.ofNullable(BY_KEY.get(key));
    }

    public static Optional<Setting<?>> byEnvName(String envName) {
        return BY_KEY.values().stream().filter(s -> s.envName().equals(envName)).findFirst();
    }

    /** The components that read a setting. */
    public static List<Component> readers(Setting<?> setting) {
        return COMPONENTS.stream().filter(c -> c.reads(setting)).toList();
    }
}
