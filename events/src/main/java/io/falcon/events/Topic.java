package io.falcon.events;

import org.apache.kafka.common.serialization.Serde;

/** A topic name with the serdes of its keys and (JSON) values: the only way code refers to a topic. */
public record Topic<K, V>(String name, Serde<K> keySerde, JsonSerde<V> valueSerde, boolean compacted) {}
