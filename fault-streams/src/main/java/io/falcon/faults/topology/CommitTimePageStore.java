package io.falcon.faults.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The job window's store of held-fault pages ({@link HeldPage}), which writes a changed page when the task commits
 * instead of on every fault added to it: a page is rewritten by every fault it takes and every decision round that
 * releases one, and only its value at the commit has to reach the changelog and the local store. The processor
 * marks a page with {@link #writeAtCommit}; Kafka Streams flushes the stores' caches right before it flushes the
 * producer and commits the transaction ({@code flushCache}), and this store encodes and writes the marked pages
 * there, so what the changelog holds at each commit is exactly what the pages hold, and the input offsets committed
 * with it never run ahead of the held faults. Writing on every add cost an encode of half a page and a store put
 * (key encoding, cache bookkeeping) per fault, a tenth of the stream thread.
 *
 * <p>Kafka Streams' own cache layer does the same for serialized values; this one keeps the pages as objects. It
 * relies on two Kafka Streams internals, as that cache does: the commit calls {@code flushCache} on the stores that
 * are {@code CachedStateStore}s (this one, through {@link WrappedStateStore}), and a store written outside the
 * processing of a record needs a record context for its changelog records. FaultWindowRestartIT fails if a later
 * Kafka Streams stops calling it.
 */
final class CommitTimePageStore extends WrappedStateStore<KeyValueStore<String, byte[]>, String, byte[]>
        implements KeyValueStore<String, byte[]> {
    /** Pages to write at the next commit, by key; a page marked twice is written once, as it then is. */
    private final Map<String, HeldPage> marked = new LinkedHashMap<>();

    private InternalProcessorContext<?, ?> context;

    CommitTimePageStore(KeyValueStore<String, byte[]> inner) {
        super(inner);
    }

    /** The builder of this store around the builder of the (logged, uncached) store it writes to. */
    static StoreBuilder<CommitTimePageStore> builder(StoreBuilder<KeyValueStore<String, byte[]>> inner) {
        return new Builder(inner);
    }

    /**
     * This store, from what the processor context hands out for it (Kafka Streams gives processors a decorator that
     * refuses init and close, and hides the store's own methods).
     */
    static CommitTimePageStore of(StateStore store) {
        StateStore at = store;
        while (!(at instanceof CommitTimePageStore) && at instanceof WrappedStateStore<?, ?, ?> wrapper) {
            at = wrapper.wrapped();
        }
        if (at instanceof CommitTimePageStore pages) {
            return pages;
        }
        throw new IllegalStateException("not a page store: " + store.getClass().getName());
    }

    /** Writes the page (or deletes it, once it holds nothing) at the next commit. */
    void writeAtCommit(HeldPage page) {
        marked.put(page.key(), page);
    }

    /** How many pages wait for the commit (tests). */
    int marked() {
        return marked.size();
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
        if (!(stateStoreContext instanceof InternalProcessorContext<?, ?> internal)) {
            throw new IllegalStateException("the page store needs Kafka Streams' processor context, got "
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
        // a page marked but not written belongs to a transaction that is not committed: it is not kept
        marked.clear();
        super.close();
    }

    private void writeMarked() {
        if (marked.isEmpty()) {
            return;
        }
        // outside a record's processing the context may hold another record's (or none): the changelog records of
        // the pages carry the commit's wall-clock time and no source
        ProcessorRecordContext before = context.recordContext();
        context.setRecordContext(
                new ProcessorRecordContext(context.currentSystemTimeMs(), -1, -1, null, new RecordHeaders()));
        try {
            for (HeldPage page : marked.values()) {
                if (page.held() > 0) {
                    wrapped().put(page.key(), page.encode());
                } else {
                    wrapped().delete(page.key());
                }
            }
            marked.clear();
        } finally {
            context.setRecordContext(before);
        }
    }

    @Override
    public void put(String key, byte[] value) {
        wrapped().put(key, value);
    }

    @Override
    public byte[] putIfAbsent(String key, byte[] value) {
        return wrapped().putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<String, byte[]>> entries) {
        wrapped().putAll(entries);
    }

    @Override
    public byte[] delete(String key) {
        return wrapped().delete(key);
    }

    @Override
    public byte[] get(String key) {
        return wrapped().get(key);
    }

    @Override
    public KeyValueIterator<String, byte[]> range(String from, String to) {
        return wrapped().range(from, to);
    }

    @Override
    public KeyValueIterator<String, byte[]> reverseRange(String from, String to) {
        return wrapped().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<String, byte[]> all() {
        return wrapped().all();
    }

    @Override
    public KeyValueIterator<String, byte[]> reverseAll() {
        return wrapped().reverseAll();
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<String, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return wrapped().prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    private static final class Builder implements StoreBuilder<CommitTimePageStore> {
        private final StoreBuilder<KeyValueStore<String, byte[]>> inner;

        Builder(StoreBuilder<KeyValueStore<String, byte[]>> inner) {
            this.inner = inner;
        }

        @Override
        public StoreBuilder<CommitTimePageStore> withCachingEnabled() {
            throw new UnsupportedOperationException("the page store is its own cache");
        }

        @Override
        public StoreBuilder<CommitTimePageStore> withCachingDisabled() {
            inner.withCachingDisabled();
            return this;
        }

        @Override
        public StoreBuilder<CommitTimePageStore> withLoggingEnabled(Map<String, String> config) {
            inner.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<CommitTimePageStore> withLoggingDisabled() {
            inner.withLoggingDisabled();
            return this;
        }

        @Override
        public CommitTimePageStore build() {
            return new CommitTimePageStore(inner.build());
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
