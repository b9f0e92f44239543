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
    private final Map<SseClient, Set<String>> clients = new ConcurrentHashMap<>();
    private final Set<String> due = ConcurrentHashMap.newKeySet();
    private final ExecutorService teller = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "console-live-updates");
        t.setDaemon(true);
        return t;
    });

    public void subscribe(SseClient client, List<String> topics) {
        clients.put(client, Set.copyOf(topics));
        client.onClose(() -> clients.remove(client));
        client.sendComment("subscribed");
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
                        if (client.terminated()) {
                            clients.remove(client);
                        } else {
                            client.sendEvent("changed", topic);
                        }
                    } catch (RuntimeException e) {
                        // a browser gone away: forget it, and go on telling the others
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
