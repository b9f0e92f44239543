package io.falcon.events.security;

import io.falcon.events.config.SettingValues;
import io.falcon.events.config.SharedKeys;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Where Kafka is and how to talk to it: the one source of every Falcon Kafka client's connection properties
 * (components, Kafka Streams, the CLI, Debezium's internal clients, admin clients). A client adds its own settings
 * (group, serializers, idempotence) to {@link #properties()}.
 */
public record KafkaConnection(String bootstrapServers, KafkaClientSecurity security) {
    /** An unsecured connection (the embedded broker, tests, the local demo). */
    public static KafkaConnection plaintext(String bootstrapServers) {
        return new KafkaConnection(bootstrapServers, KafkaClientSecurity.PLAINTEXT);
    }

    public static KafkaConnection from(SettingValues values) {
        return new KafkaConnection(values.get(SharedKeys.KAFKA_BOOTSTRAP_SERVERS), KafkaClientSecurity.from(values));
    }

    /** bootstrap.servers and the security properties, in a new Properties the caller adds to. */
    public Properties properties() {
        Properties props = new Properties();
        props.putAll(security.clientProperties());
        props.put("bootstrap.servers", bootstrapServers);
        return props;
    }

    /** The connection's properties with a client's own added (its own win), for the Map constructors of clients. */
    public Map<String, Object> with(Map<String, ?> own) {
        Map<String, Object> config = new HashMap<>();
        properties().forEach((key, value) -> config.put(key.toString(), value));
        config.putAll(own);
        return config;
    }

    /** bootstrap.servers and the security properties with a prefix (Debezium's internal clients). */
    public Properties properties(String prefix) {
        Properties props = new Properties();
        props.putAll(security.clientProperties(prefix));
        props.put(prefix + "bootstrap.servers", bootstrapServers);
        return props;
    }
}
