package io.falcon.console;

import io.falcon.console.view.Change;
import io.javalin.http.sse.SseClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The pages' server-sent events: a page subscribes to topics ("job:ID", "cluster:ID", "fleet") and is told
 * "changed" with the topic when an event about it arrives; it then fetches its live part again. The telling happens on
 * a thread of its own, so a slow browser never holds up the topic reader; each topic is told at most once per pass.
 */
public final class LiveUpdates implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LiveUpdates.class);

    private final Map<SseClient, Set<String>> clients = new ConcurrentHashMap<>();
    private final Set<String> due = ConcurrentHashMap.newKeySet();
    private final ExecutorService teller = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "console-live-updates");
        t.setDaemon(true);
        return t;
    });

    /**
     * Registers the page and greets it. Every write to a page is made under the page's lock: the teller may tell it a
     * change the moment it is registered, and two writes at once on one response fail (and the page was dropped).
     */
    public void subscribe(SseClient client, List<String> topics) {
        synchronized (client) {
            clients.put(client, Set.copyOf(topics));
            client.onClose(() -> {
                if (clients.remove(client) != null) {
                    log.debug("a page closed its live updates ({})", topics);
                }
            });
            client.sendComment("subscribed");
        }
    }

    public void changed(Change change) {
        if (clients.isEmpty()) {
            return;
        }
        if (due.addAll(change.topics())) {
            teller.execute(this::tell);
        }
    }

    private void tell() {
        for (String topic : List.copyOf(due)) {
            due.remove(topic);
            clients.forEach((client, topics) -> {
                if (topics.contains(topic)) {
                    try {
                        synchronized (client) {
                            if (client.terminated()) {
                                clients.remove(client);
                            } else {
                                client.sendEvent("changed", topic);
                            }
                        }
                    } catch (RuntimeException e) {
                        // a browser gone away: forget it, and go on telling the others
                        log.info("live update of {} not sent, the page is dropped: {}", topic, e.toString());
                        clients.remove(client);
                    }
                }
            });
        }
    }

    public int subscribers() {
        return clients.size();
    }

    @Override
    public void close() {
        teller.shutdownNow();
        clients.keySet().forEach(SseClient::close);
    }
}
