package io.falcon.faults.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A store whose values change many times between two commits and are written once, when the task commits: the
 * job window's pages of held faults ({@link HeldPage}: rewritten by every fault added and every decision round) and
 * the nodes' isolation state (rewritten by every fault of an isolated device, whose last fault time auto-release
 * needs). The processor marks a key with {@link #writeAtCommit} and the value it will have then; Kafka Streams
 * flushes the stores' caches right before it flushes the producer and commits the transaction
 * ({@code flushCache}), and this store writes the marked values there, so what the changelog holds at each commit
 * is exactly what the processor holds, and the input offsets committed with it never run ahead of it. A read
 * writes the marked values first, so it sees them. Writing on every change cost an encode and a store put (key
 * encoding, cache bookkeeping, a changelog record) per fault, a fifth of the stream thread.
 *
 * <p>Kafka Streams' own cache layer does the same for serialized values; this one keeps the values as the
 * processor's objects and encodes each once per commit. It relies on two Kafka Streams internals, as that cache
 * does: the commit calls {@code flushCache} on the stores that are {@code CachedStateStore}s (this one, through
 * {@link WrappedStateStore}), and a store written outside the processing of a record needs a record context for
 * its changelog records. CommitTimeStoreTest and FaultWindowRestartIT fail if a later Kafka Streams stops calling it.
 */
final class CommitTimeStore<V> extends WrappedStateStore<KeyValueStore<String, V>, String, V>
        implements KeyValueStore<String, V> {
    /** Values to write at the next commit, by key (empty: delete); a key marked twice is written once. */
    private final Map<String, Supplier<Optional<V>>> marked = new LinkedHashMap<>();

    private InternalProcessorContext<?, ?> context;

    CommitTimeStore(KeyValueStore<String, V> inner) {
        super(inner);
    }

    /** The builder of this store around the builder of the (logged, uncached) store it writes to. */
    static <V> StoreBuilder<CommitTimeStore<V>> builder(StoreBuilder<KeyValueStore<String, V>> inner) {
        return new Builder<>(inner);
    }

    /**
     * This store, from what the processor context hands out for it (Kafka Streams gives processors a decorator that
     * refuses init and close, and hides the store's own methods).
     */
    @SuppressWarnings("unchecked")
    static <V> CommitTimeStore<V> of(StateStore store) {
        StateStore at = store;
        while (!(at instanceof CommitTimeStore<?>) && at instanceof WrappedStateStore<?, ?, ?> wrapper) {
            at = wrapper.wrapped();
        }
        if (at instanceof CommitTimeStore<?> found) {
            return (CommitTimeStore<V>) found;
        }
        throw new IllegalStateException(
                "not a commit-time store: " + store.getClass().getName());
    }

    /**
     * Writes the key at the next commit with the value the supplier gives then (empty: deletes it). The supplier
     * is asked once, at the commit or at the next read, so it can read the processor's current state.
     */
    void writeAtCommit(String key, Supplier<Optional<V>> value) {
        marked.put(key, value);
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
        if (!(stateStoreContext instanceof InternalProcessorContext<?, ?> internal)) {
            throw new IllegalStateException("a commit-time store needs Kafka Streams' processor context, got "
                    + stateStoreContext.getClass().getName());
        }
        context = internal;
        marked.clear();
        super.init(stateStoreContext, root);
    }

    @Override
    public void flushCache() {
        writeMarked();
        super.flushCache();
    }

    @Override
    public void flush() {
        writeMarked();
        super.flush();
    }

    @Override
    public void close() {
        // a value marked but not written belongs to a transaction that is not committed: it is not kept
        marked.clear();
        super.close();
    }

    private void writeMarked() {
        if (marked.isEmpty()) {
            return;
        }
        // outside a record's processing the context may hold another record's (or none): these changelog records
        // carry the wall-clock time of their writing and no source
        ProcessorRecordContext before = context.recordContext();
        context.setRecordContext(
                new ProcessorRecordContext(context.currentSystemTimeMs(), -1, -1, null, new RecordHeaders()));
        try {
            for (Map.Entry<String, Supplier<Optional<V>>> entry : marked.entrySet()) {
                Optional<V> value = entry.getValue().get();
                if (value.isPresent()) {
                    wrapped().put(entry.getKey(), value.get());
                } else {
                    wrapped().delete(entry.getKey());
                }
            }
            marked.clear();
        } finally {
            context.setRecordContext(before);
        }
    }

    @Override
    public void put(String key, V value) {
        writeMarked();
        wrapped().put(key, value);
    }

    @Override
    public V putIfAbsent(String key, V value) {
        writeMarked();
        return wrapped().putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<String, V>> entries) {
        writeMarked();
        wrapped().putAll(entries);
    }

    @Override
    public V delete(String key) {
        writeMarked();
        return wrapped().delete(key);
    }

    @Override
    public V get(String key) {
        writeMarked();
        return wrapped().get(key);
    }

    @Override
    public KeyValueIterator<String, V> range(String from, String to) {
        writeMarked();
        return wrapped().range(from, to);
    }

    @Override
    public KeyValueIterator<String, V> reverseRange(String from, String to) {
        return wrapped().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<String, V> all() {
        writeMarked();
        return wrapped().all();
    }

    @Override
    public KeyValueIterator<String, V> reverseAll() {
        writeMarked();
        return wrapped().reverseAll();
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(P prefix, PS prefixKeySerializer) {
        writeMarked();
        return wrapped().prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        writeMarked();
        return wrapped().approximateNumEntries();
    }

    private static final class Builder<V> implements StoreBuilder<CommitTimeStore<V>> {
        private final StoreBuilder<KeyValueStore<String, V>> inner;

        Builder(StoreBuilder<KeyValueStore<String, V>> inner) {
            this.inner = inner;
        }

        @Override
        public StoreBuilder<CommitTimeStore<V>> withCachingEnabled() {
            throw new UnsupportedOperationException("a commit-time store is its own cache");
        }

        @Override
        public StoreBuilder<CommitTimeStore<V>> withCachingDisabled() {
            inner.withCachingDisabled();
            return this;
        }

        @Override
        public StoreBuilder<CommitTimeStore<V>> withLoggingEnabled(Map<String, String> config) {
            inner.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<CommitTimeStore<V>> withLoggingDisabled() {
            inner.withLoggingDisabled();
            return this;
        }

        @Override
        public CommitTimeStore<V> build() {
            return new CommitTimeStore<>(inner.build());
        }

        @Override
        public Map<String, String> logConfig() {
            return inner.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return inner.loggingEnabled();
        }

        @Override
        public String name() {
            return inner.name();
        }
    }
}
