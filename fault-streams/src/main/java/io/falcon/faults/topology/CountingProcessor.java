package io.falcon.faults.topology;

import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.fault.FaultVerdict;
import io.falcon.events.fault.FaultVerdict.Outcome;
import io.falcon.events.fault.IsolationCommand;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.faults.core.Candidate;
import io.falcon.faults.core.Effects;
import io.falcon.faults.core.FaultCounting;
import io.falcon.faults.core.FaultIntake;
import io.falcon.faults.core.FrequencyRule;
import io.falcon.faults.core.NodeIsolationState;
import io.falcon.ops.FalconMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counting stage, keyed by cluster id (the isolation budget is per cluster): hardware faults (decoded, from
 * the job window of the same task; or in the compact binary encoding, from falcon.fault-counting written by
 * earlier versions), release commands and the executor's listings of the clusters' ConfigMaps in, verdicts and
 * per-node isolation state out. A wall-clock punctuator
 * auto-releases fault-free devices and isolates budget candidates once budget frees up.
 */
final class CountingProcessor implements Processor<String, Object, String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(CountingProcessor.class);

    private final FaultTopologyOptions options;
    private ProcessorContext<String, Object> context;
    private CommitTimeStore<NodeIsolationState> nodes;
    private KeyValueStore<String, StoredValues.Candidates> candidates;
    private final CurrentPolicy currentPolicy;
    private FaultCounting counting;

    private final FalconMetrics metrics;
    /** Isolated devices per node of each cluster, for the gauge; rebuilt as nodes change after a restart. */
    private final Map<String, Map<String, Integer>> isolatedByCluster = new HashMap<>();
    /** Their sum per cluster, kept as nodes change: summing every node per isolation was O(nodes). */
    private final Map<String, Long> isolatedTotals = new HashMap<>();

    CountingProcessor(FaultTopologyOptions options, CurrentPolicy currentPolicy, FalconMetrics metrics) {
        this.currentPolicy = currentPolicy;
        this.metrics = metrics;
        this.options = options;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        nodes = CommitTimeStore.of(context.getStateStore(FaultTopology.NODE_STORE));
        candidates = context.getStateStore(FaultTopology.CANDIDATE_STORE);
        counting = new FaultCounting(new StoreCountingState(
                context.getStateStore(FaultTopology.COUNTER_STORE),
                nodes,
                candidates,
                context.getStateStore(FaultTopology.LISTED_STORE)));
        context.schedule(options.releaseCheckInterval(), PunctuationType.WALL_CLOCK_TIME, this::checkReleases);
        context.schedule(options.stateSweepInterval(), PunctuationType.WALL_CLOCK_TIME, this::forgetExpired);
    }

    private void forgetExpired(long nowMs) {
        FaultCounting.Forgotten forgotten = counting.forgetExpired(nowMs);
        for (Candidate candidate : forgotten.candidates()) {
            LOG.info(
                    "budget candidate dropped cluster={} node={} device={} code={}: its faults are {}h old, older than"
                            + " any fault window",
                    candidate.fault().clusterId(),
                    candidate.fault().nodeName(),
                    candidate.fault().deviceName(),
                    candidate.fault().faultCode(),
                    FrequencyRule.MAX_WINDOW_MS / 3_600_000L);
        }
        if (forgotten.counters() > 0) {
            LOG.info(
                    "task {} deleted {} fault counters without a fault for {}h",
                    context.taskId(),
                    forgotten.counters(),
                    FrequencyRule.MAX_WINDOW_MS / 3_600_000L);
        }
    }

    @Override
    public void process(Record<String, Object> record) {
        if (record.value() instanceof DeviceFault fault) {
            try {
                Effects effects = counting.onCountedFault(fault, policy(), context.currentSystemTimeMs());
                if (effects.refusal().isPresent()) {
                    FaultTopology.DEAD_LETTERS.send(
                            record.withValue(Topics.DEVICE_FAULTS.valueSerde().toBytes(fault)),
                            context,
                            "device fault refused: " + effects.refusal().get(),
                            null);
                    metrics.deadLetter(Topics.DEVICE_FAULTS.name(), "bound");
                    return;
                }
                emit(effects);
            } catch (RuntimeException e) {
                // Dead-lettered as the JSON of falcon.device-faults, from where it can be produced again; encoded
                // only now, as a fault from the job window is not bytes.
                FaultTopology.DEAD_LETTERS.guard(
                        record.withValue(Topics.DEVICE_FAULTS.valueSerde().toBytes(fault)),
                        context,
                        metrics::deadLetter,
                        () -> {
                            throw e;
                        },
                        () -> {});
            }
            return;
        }
        // A record whose processing throws is dead-lettered with the reason; the stream goes on.
        Record<String, byte[]> raw = record.withValue((byte[]) record.value());
        FaultTopology.DEAD_LETTERS.guard(raw, context, metrics::deadLetter, () -> processSafely(raw), () -> {});
    }

    private void processSafely(Record<String, byte[]> record) {
        long nowMs = context.currentSystemTimeMs();
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        if (topic.equals(Topics.ISOLATION_COMMANDS.name())) {
            FaultTopology.DEAD_LETTERS
                    .decode(Topics.ISOLATION_COMMANDS.valueSerde(), record, context)
                    .ifPresent(command -> {
                        Optional<String> problem = FaultIntake.commandProblem(command);
                        if (problem.isPresent()) {
                            refuse(record, "invalid isolation command: " + problem.get(), topic, "validate");
                            return;
                        }
                        if (command instanceof IsolationCommand.Release release) {
                            LOG.info(
                                    "release requested cluster={} node={} device={} reason={}",
                                    release.clusterId(),
                                    release.nodeName(),
                                    release.deviceName(),
                                    release.reason());
                            emit(counting.release(
                                    release.clusterId(),
                                    release.nodeName(),
                                    release.deviceName(),
                                    Outcome.RELEASED_BY_OPERATOR,
                                    release.reason(),
                                    policy(),
                                    nowMs));
                        } else if (command instanceof IsolationCommand.ListedByOthers others) {
                            LOG.debug(
                                    "cluster={} devices listed by others in the ConfigMap: {}",
                                    others.clusterId(),
                                    others.devices());
                            emit(counting.listedByOthers(others.clusterId(), others.devices(), policy(), nowMs));
                        } else if (command instanceof IsolationCommand.ListedByFalcon falcons) {
                            FaultCounting.Adoption adoption = counting.listedByFalcon(
                                    falcons.clusterId(), falcons.nodeName(), falcons.devices(), policy(), nowMs);
                            if (adoption.effects().refusal().isPresent()) {
                                refuse(
                                        record,
                                        "isolation command refused: "
                                                + adoption.effects().refusal().get(),
                                        topic,
                                        "bound");
                                return;
                            }
                            for (String device : adoption.adopted()) {
                                LOG.info(
                                        "cluster={} node={} device={} adopted: listed in the ConfigMap as isolated"
                                                + " by Falcon, not in fault-streams' state (lost since)",
                                        falcons.clusterId(),
                                        falcons.nodeName(),
                                        device);
                            }
                            emit(adoption.effects());
                        }
                    });
            return;
        }
        DeviceFault fault;
        try {
            fault = BinaryCodec.decodeFault(record.value());
        } catch (SerializationException e) {
            FaultTopology.DEAD_LETTERS.send(record, context, e.getMessage(), e);
            metrics.deadLetter(topic, "decode");
            return;
        }
        // written by earlier versions, whose intake did not bound every string (meta.eventId)
        Optional<String> problem = FaultIntake.problem(fault, nowMs);
        if (problem.isPresent()) {
            refuse(record, "invalid device fault: " + problem.get(), topic, "validate");
            return;
        }
        Effects effects = counting.onCountedFault(fault, policy(), nowMs);
        if (effects.refusal().isPresent()) {
            refuse(record, "device fault refused: " + effects.refusal().get(), topic, "bound");
            return;
        }
        emit(effects);
    }

    /**
     * Dead-letters an input whose reason says why it cannot be applied (stage "validate": invalid; "bound": it would
     * take a stored value past its bound); nothing changed.
     */
    private void refuse(Record<String, byte[]> record, String reason, String topic, String stage) {
        FaultTopology.DEAD_LETTERS.send(record, context, reason, null);
        metrics.deadLetter(topic, stage);
    }

    private void checkReleases(long nowMs) {
        IsolationPolicy policy = policy();
        List<NodeIsolationState> isolated = new ArrayList<>();
        if (policy.autoRelease()) {
            try (KeyValueIterator<String, NodeIsolationState> it = nodes.all()) {
                it.forEachRemaining(kv -> isolated.add(kv.value));
            }
        }
        for (NodeIsolationState node : isolated) {
            emit(counting.autoRelease(node, policy, nowMs));
        }
        List<String> clustersWithCandidates = new ArrayList<>();
        try (KeyValueIterator<String, StoredValues.Candidates> it = candidates.all()) {
            it.forEachRemaining(kv -> clustersWithCandidates.add(kv.key));
        }
        for (String cluster : clustersWithCandidates) {
            emit(counting.promoteCandidates(cluster, policy, nowMs));
        }
    }

    private void emit(Effects effects) {
        for (FaultVerdict verdict : effects.verdicts()) {
            if (verdict.outcome() != Outcome.COUNTED) {
                LOG.info(
                        "verdict={} cluster={} node={} device={} code={} job={} policy=v{}: {}",
                        verdict.outcome(),
                        verdict.clusterId(),
                        verdict.nodeName(),
                        verdict.deviceName(),
                        verdict.faultCode(),
                        verdict.jobId().orElse(""),
                        verdict.evidence().policyVersion(),
                        verdict.evidence().explanation());
            }
            metrics.faultVerdict(verdict.outcome().name(), verdict.clusterId());
            context.forward(
                    new Record<>(
                            NodeIsolation.key(verdict.clusterId(), verdict.nodeName()),
                            (Object) verdict,
                            verdict.meta().occurredAt().toEpochMilli()),
                    FaultTopology.VERDICT_SINK);
        }
        long nowMs = context.currentSystemTimeMs();
        for (NodeIsolationState node : effects.changedNodes()) {
            Object value = node.isEmpty() ? null : node.toWire();
            recordIsolated(node);
            context.forward(new Record<>(node.key(), value, nowMs), FaultTopology.ISOLATION_SINK);
        }
    }

    private IsolationPolicy policy() {
        return currentPolicy.get();
    }

    private void recordIsolated(NodeIsolationState node) {
        String[] clusterAndNode = NodeIsolation.splitKey(node.key());
        Map<String, Integer> nodes = isolatedByCluster.computeIfAbsent(clusterAndNode[0], c -> new HashMap<>());
        int devices = node.devices().size();
        // a node without isolated devices leaves the map: node names come and go with node pools
        Integer before = devices == 0 ? nodes.remove(clusterAndNode[1]) : nodes.put(clusterAndNode[1], devices);
        long total = isolatedTotals.merge(clusterAndNode[0], (long) devices - (before == null ? 0 : before), Long::sum);
        metrics.isolatedDevices(clusterAndNode[0], total);
    }
}
