package io.falcon.fleetsim;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads named for fleet-sim: its own Kubernetes clients and its GKE server run on these rather than on the
 * libraries' default pools, which the clients under test (the executor's fabric8, JDK HTTP and gRPC clients) use
 * too. In one JVM (falcon-local, bench/e2e) a profile or a CPU account by thread name then tells the simulator's
 * work from the executor's.
 */
public final class SimThreads {
    private SimThreads() {}

    /** A factory of daemon threads named {@code prefix-N}. */
    public static ThreadFactory named(String prefix) {
        AtomicInteger next = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + next.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A cached pool of such threads (idle ones end after a minute). */
    public static ExecutorService cachedPool(String prefix) {
        return Executors.newCachedThreadPool(named(prefix));
    }
}
