package io.falcon.events;

import com.fasterxml.jackson.databind.JavaType;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** JSON serde over {@link Json#mapper()}; a payload that does not decode raises SerializationException. */
public final class JsonSerde<T> implements Serde<T> {
    private final JavaType type;

    private JsonSerde(JavaType type) {
        this.type = type;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(Json.mapper().constructType(type));
    }

    public byte[] toBytes(T value) {
        if (value == null) {
            return null;
        }
        try {
            return Json.mapper().writeValueAsBytes(value);
        } catch (IOException e) {
            throw new SerializationException(
                    "cannot encode " + type.getRawClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public T fromBytes(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return Json.mapper().readValue(bytes, type);
        } catch (IOException | RuntimeException e) {
            throw new SerializationException(
                    "cannot decode " + type.getRawClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> toBytes(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> fromBytes(bytes);
    }
}
