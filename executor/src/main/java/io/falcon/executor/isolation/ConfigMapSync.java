package io.falcon.executor.isolation;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.falcon.events.Meta;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.NodeIsolation;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes node isolation state into clusterd-manual-info-cm of a cluster and detects devices operators removed,
 * with optimistic concurrency: every change is read-modify-write on the resourceVersion just read, retried on 409.
 * Not thread-safe: the actuator calls it from one thread.
 */
public final class ConfigMapSync {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigMapSync.class);
    static final int MAX_ATTEMPTS = 10;
    static final String REASON =
            "operator removed it from " + ManualInfoConfigMap.NAMESPACE + "/" + ManualInfoConfigMap.NAME;

    private final IsolationClusters clusters;
    private final Consumer<IsolationCommand> commands;
    private final Clock clock;
    private final String producer;
    /** cluster/node -> devices whose release was published but not yet reflected in falcon.isolation. */
    private final Map<String, Set<String>> pendingReleases = new HashMap<>();
    /** Test hook: runs between the read and the write of an attempt. */
    Runnable betweenReadAndWrite = () -> {};

    public ConfigMapSync(
            IsolationClusters clusters, Consumer<IsolationCommand> commands, Clock clock, String producer) {
        this.clusters = clusters;
        this.commands = commands;
        this.clock = clock;
        this.producer = producer;
    }

    /** Applies the node's state (empty = no isolated device) to its cluster's ConfigMap. */
    public boolean apply(String clusterId, String node, Optional<NodeIsolation> state) {
        String key = NodeIsolation.key(clusterId, node);
        Set<String> pending = pendingReleases.getOrDefault(key, Set.of());
        Set<String> desired = state.map(s -> Set.copyOf(s.total())).orElse(Set.of());
        // A release is done once fault-streams publishes a state without the device.
        Set<String> stillPending = new HashSet<>(pending);
        stillPending.retainAll(desired);
        if (stillPending.isEmpty()) {
            pendingReleases.remove(key);
        } else {
            pendingReleases.put(key, stillPending);
        }
        var removed = new java.util.concurrent.atomic.AtomicReference<Map<String, Set<String>>>(Map.of());
        boolean written = modify(
                clusterId,
                cm -> {
                    // Removals not yet seen by the informer must not be overwritten by this write.
                    removed.set(ManualInfoConfigMap.removedByOperator(cm));
                    ManualInfoConfigMap.forget(cm, removed.get());
                    Set<String> excluded = new HashSet<>(stillPending);
                    excluded.addAll(removed.get().getOrDefault(node, Set.of()));
                    ManualInfoConfigMap.put(cm, node, state.map(s -> withoutDevices(s, excluded)));
                },
                "node=" + node + " devices=" + desired);
        if (written) {
            publishReleases(clusterId, removed.get());
        }
        return written;
    }

    /** Publishes a release for every device an operator removed, then forgets them in the annotation. */
    public boolean checkReleases(String clusterId) {
        var removed = new java.util.concurrent.atomic.AtomicReference<Map<String, Set<String>>>(Map.of());
        boolean written = modify(
                clusterId,
                cm -> {
                    removed.set(ManualInfoConfigMap.removedByOperator(cm));
                    ManualInfoConfigMap.forget(cm, removed.get());
                },
                "release check");
        // Published only once the annotation forgot them, so a conflict retry does not publish twice.
        if (written) {
            publishReleases(clusterId, removed.get());
        }
        return written;
    }

    /** The whole ConfigMap was deleted: every device Falcon had written is released. */
    public void deleted(String clusterId, ConfigMap lastKnown) {
        Map<String, Set<String>> written = ManualInfoConfigMap.written(lastKnown);
        LOG.warn(
                "cluster={} {}/{} was deleted: releasing {}",
                clusterId,
                ManualInfoConfigMap.NAMESPACE,
                ManualInfoConfigMap.NAME,
                written);
        publishReleases(clusterId, written);
    }

    private void publishReleases(String clusterId, Map<String, Set<String>> removed) {
        removed.forEach((node, devices) -> devices.forEach(device -> {
            LOG.info(
                    "cluster={} node={} device={} released by operator (removed from the ConfigMap)",
                    clusterId,
                    node,
                    device);
            commands.accept(
                    new IsolationCommand.Release(Meta.of(producer, clock.instant()), clusterId, node, device, REASON));
            pendingReleases
                    .computeIfAbsent(NodeIsolation.key(clusterId, node), k -> new HashSet<>())
                    .add(device);
        }));
    }

    private interface Change {
        void applyTo(ConfigMap cm);
    }

    private boolean modify(String clusterId, Change change, String what) {
        Optional<KubernetesClient> client = clusters.client(clusterId);
        if (client.isEmpty()) {
            LOG.warn("cluster={} unknown: cannot update {} ({})", clusterId, ManualInfoConfigMap.NAME, what);
            return false;
        }
        var resource = client.get()
                .configMaps()
                .inNamespace(ManualInfoConfigMap.NAMESPACE)
                .withName(ManualInfoConfigMap.NAME);
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            ConfigMap current = resource.get();
            ConfigMap next = current == null
                    ? new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName(ManualInfoConfigMap.NAME)
                            .withNamespace(ManualInfoConfigMap.NAMESPACE)
                            .endMetadata()
                            .build()
                    : new ConfigMapBuilder(current).build();
            change.applyTo(next);
            betweenReadAndWrite.run();
            try {
                var target = client.get()
                        .configMaps()
                        .inNamespace(ManualInfoConfigMap.NAMESPACE)
                        .resource(next);
                if (current == null) {
                    target.create();
                } else if (!next.equals(current)) {
                    target.update();
                }
                LOG.debug("cluster={} {} updated ({})", clusterId, ManualInfoConfigMap.NAME, what);
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    LOG.error(
                            "cluster={} cannot update {} ({}): {}",
                            clusterId,
                            ManualInfoConfigMap.NAME,
                            what,
                            e.getMessage());
                    return false;
                }
                LOG.info(
                        "cluster={} {} changed concurrently (attempt {}), retrying ({})",
                        clusterId,
                        ManualInfoConfigMap.NAME,
                        attempt,
                        what);
            }
        }
        LOG.error(
                "cluster={} gave up updating {} after {} conflicts ({})",
                clusterId,
                ManualInfoConfigMap.NAME,
                MAX_ATTEMPTS,
                what);
        return false;
    }

    private static NodeIsolation withoutDevices(NodeIsolation state, Set<String> devices) {
        if (devices.isEmpty()) {
            return state;
        }
        Map<String, java.util.List<NodeIsolation.DeviceIsolation>> detail = new HashMap<>(state.detail());
        devices.forEach(detail::remove);
        return new NodeIsolation(
                state.total().stream().filter(d -> !devices.contains(d)).toList(), detail);
    }
}
