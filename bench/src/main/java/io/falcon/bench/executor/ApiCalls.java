package io.falcon.bench.executor;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** How many calls of each kind the executor made to the fakes: where its time at real latencies goes. */
final class ApiCalls {
    private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

    void count(String call) {
        counts.computeIfAbsent(call, c -> new LongAdder()).increment();
    }

    /** The counts so far, by call name. */
    Map<String, Long> snapshot() {
        Map<String, Long> sorted = new TreeMap<>();
        counts.forEach((call, count) -> sorted.put(call, count.sum()));
        return sorted;
    }
}
