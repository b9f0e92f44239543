package io.falcon.events;

import com.fasterxml.jackson.databind.JavaType;
import java.io.IOException;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * JSON serde over {@link Json#mapper()}; a payload that does not decode raises SerializationException. A type
 * written or read once per record on a hot path can bring a hand-written {@link FastJson} (streaming, no
 * databinding): it must write exactly what the mapper writes, and read a subset of what the mapper reads, handing
 * everything else to the mapper, so the contract does not depend on which path a record took.
 */
public final class JsonSerde<T> implements Serde<T> {
    private final JavaType type;
    private final Optional<FastJson<T>> fast;

    /** A hand-written codec for one type; see {@link JsonSerde}. */
    public interface FastJson<T> {
        /** The JSON the mapper would write for value. */
        byte[] encode(T value) throws IOException;

        /** The value, or empty when the bytes are not in the subset this codec reads (the mapper reads them). */
        Optional<T> decode(byte[] bytes);
    }

    private JsonSerde(JavaType type, Optional<FastJson<T>> fast) {
        this.type = type;
        this.fast = fast;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(Json.mapper().constructType(type), Optional.empty());
    }

    /** A serde that writes and (where it can) reads with a hand-written codec, the mapper for the rest. */
    public static <T> JsonSerde<T> of(Class<T> type, FastJson<T> fast) {
        return new JsonSerde<>(Json.mapper().constructType(type), Optional.of(fast));
    }

    public byte[] toBytes(T value) {
        if (value == null) {
            return null;
        }
        try {
            return fast.isPresent() ? fast.get().encode(value) : Json.mapper().writeValueAsBytes(value);
        } catch (IOException e) {
            throw new SerializationException(
                    "cannot encode " + type.getRawClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public T fromBytes(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        if (fast.isPresent()) {
            Optional<T> decoded = fast.get().decode(bytes);
            if (decoded.isPresent()) {
                return decoded.get();
            }
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
