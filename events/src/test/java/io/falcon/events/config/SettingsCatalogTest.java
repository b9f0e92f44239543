package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.Topic;
import io.falcon.events.Topics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsCatalogTest {
    @Test
    void everySettingIsDeclaredOnceAndDescribed() {
        List<Setting<?>> all = SettingsCatalog.settings();
        assertThat(all).extracting(Setting::key).doesNotHaveDuplicates();
        assertThat(all).extracting(Setting::envName).doesNotHaveDuplicates();
        assertThat(all).allSatisfy(s -> assertThat(s.description()).as(s.key()).isNotBlank());
        assertThat(SettingsCatalog.byEnvName("FALCON_EXECUTOR_NODE_POOL_CREATE_TIMEOUT"))
                .contains(ExecutorKeys.NODE_POOL_CREATE_TIMEOUT);
        assertThat(SettingsCatalog.byKey("falcon.scheduler.orphan-grace")).contains(SchedulerKeys.ORPHAN_GRACE);
    }

    @Test
    void sharedSettingsAreTheSameDeclarationInEveryReader() {
        assertThat(SettingsCatalog.readers(SharedKeys.KAFKA_BOOTSTRAP_SERVERS))
                .extracting(Component::name)
                .contains("cdc-ingest", "scheduler", "executor", "status-sink", "fault-streams", "console", "cli");
        assertThat(SettingsCatalog.readers(SharedKeys.OPS_PORT)).hasSize(6);
        assertThat(SettingsCatalog.settings())
                .extracting(Setting::key)
                .filteredOn(k -> k.contains("bootstrap"))
                .containsExactly("falcon.kafka.bootstrap-servers");
    }

    @Test
    void noSettingRenamesACatalogTopic() {
        List<String> topicNames = Topics.all().stream().map(Topic::name).toList();
        for (Setting<?> setting : SettingsCatalog.settings()) {
            if (setting.fallback() instanceof Fallback.Value<?> value && value.value() instanceof String text) {
                assertThat(topicNames).as(setting.key()).doesNotContain(text);
            }
        }
        assertThat(SettingsCatalog.byKey("falcon.sink.topic")).isEmpty();
        assertThat(SettingsCatalog.byKey("falcon.cdc.topic.jobs")).isEmpty();
    }

    @Test
    void everyComponentStartsOnItsDefaultsOnceTheRequiredSettingsAreGiven() {
        Map<String, String> required = Map.of(
                "FALCON_KAFKA_BOOTSTRAP_SERVERS",
                "k:9092",
                "FALCON_DB_URL",
                "jdbc:mysql://db/falcon",
                "FALCON_DB_USER",
                "u",
                "FALCON_CDC_DATABASE_HOST",
                "db",
                "FALCON_CDC_DATABASE_USER",
                "cdc",
                "FALCON_CDC_DATABASE_NAME",
                "falcon",
                // the console's default authentication (a bearer token) needs its file
                "FALCON_CONSOLE_TOKEN_FILE",
                "/etc/falcon/console/token");
        for (Component component : SettingsCatalog.COMPONENTS) {
            SettingValues values = SettingValues.parse(component, required);
            assertThat(values.component()).isEqualTo(component);
        }
    }
}
