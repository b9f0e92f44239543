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
    /** cluster -> the listing of its ConfigMap published last (what changed since is published on each check). */
    private final Map<String, ManualInfoConfigMap.Listing> published = new HashMap<>();
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

    /** {@link #checkReleases(String, boolean)} publishing only what the ConfigMap lists differently since. */
    public boolean checkReleases(String clusterId) {
        return checkReleases(clusterId, false);
    }

    /**
     * Publishes a release for every device an operator removed, then forgets them in the annotation; then publishes
     * what the ConfigMap lists ({@link #publishListing}): all of it when all is set (the informer's first sight and
     * its periodic resync), else what changed since the last listing published.
     */
    public boolean checkReleases(String clusterId, boolean all) {
        var removed = new java.util.concurrent.atomic.AtomicReference<Map<String, Set<String>>>(Map.of());
        var read = new java.util.concurrent.atomic.AtomicReference<ConfigMap>();
        boolean written = modify(
                clusterId,
                cm -> {
                    removed.set(ManualInfoConfigMap.removedByOperator(cm));
                    if (!removed.get().isEmpty()) {
                        // nothing to forget, nothing written: the ConfigMap of a cluster Falcon has isolated
                        // nothing in is watched too, and stays as its owners wrote it
                        ManualInfoConfigMap.forget(cm, removed.get());
                    }
                    read.set(cm);
                },
                "release check");
        // Published only once the annotation forgot them, so a conflict retry does not publish twice.
        if (written) {
            publishReleases(clusterId, removed.get());
            publishListing(clusterId, ManualInfoConfigMap.listing(read.get()), all);
        }
        return written;
    }

    /**
     * Tells fault-streams what the cluster's ConfigMap lists (it decides isolations and the budget, and would not
     * know otherwise): the devices others listed, the whole cluster in one {@link IsolationCommand.ListedByOthers}
     * (it replaces the one before, so a node that is gone is gone there too), and per node the devices Falcon wrote,
     * with their Detail, in a {@link IsolationCommand.ListedByFalcon} (fault-streams adopts those its state lost).
     * Records equal to the last ones published for the cluster are skipped unless all is set; fault-streams applies
     * them idempotently.
     */
    void publishListing(String clusterId, ManualInfoConfigMap.Listing listing, boolean all) {
        ManualInfoConfigMap.Listing last = all ? null : published.get(clusterId);
        Meta meta = Meta.of(producer, clock.instant());
        if (last == null || !listing.byOthers().equals(last.byOthers())) {
            LOG.debug("cluster={} devices listed by others: {}", clusterId, listing.byOthers());
            commands.accept(new IsolationCommand.ListedByOthers(meta, clusterId, listing.byOthers()));
        }
        listing.byFalcon().forEach((node, devices) -> {
            if (last == null || !devices.equals(last.byFalcon().get(node))) {
                LOG.debug("cluster={} node={} devices listed as Falcon's: {}", clusterId, node, devices.total());
                commands.accept(new IsolationCommand.ListedByFalcon(
                        Meta.of(producer, clock.instant()), clusterId, node, devices));
            }
        });
        published.put(clusterId, listing);
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
        // nothing is listed any more: the devices others listed are no longer isolated either
        publishListing(clusterId, ManualInfoConfigMap.Listing.EMPTY, true);
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
