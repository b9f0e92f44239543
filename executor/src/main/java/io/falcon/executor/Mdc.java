package io.falcon.executor;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.MDC;

/** Puts job / cluster / node pool / k8s job into the slf4j MDC for the duration of a block. */
public final class Mdc implements AutoCloseable {
    private final List<String> keys = new ArrayList<>();

    private Mdc() {}

    /** Alternating key, value pairs; null values are skipped. */
    public static Mdc of(String... keyValues) {
        Mdc mdc = new Mdc();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                MDC.put(keyValues[i], keyValues[i + 1]);
                mdc.keys.add(keyValues[i]);
            }
        }
        return mdc;
    }

    @Override
    public void close() {
        keys.forEach(MDC::remove);
    }
}
