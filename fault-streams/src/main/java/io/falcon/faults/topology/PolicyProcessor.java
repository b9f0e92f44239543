package io.falcon.faults.topology;

import io.falcon.events.Topics;
import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.core.PolicyRules;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the global policy store, so every instance applies a published policy without restart. An invalid or
 * undecodable policy is rejected with the reason and the last good one stays in force (also when the store is
 * restored, since restoring replays the topic through this processor).
 */
final class PolicyProcessor implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyProcessor.class);

    private final CurrentPolicy current;
    private KeyValueStore<String, IsolationPolicy> store;

    PolicyProcessor(CurrentPolicy current) {
        this.current = current;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(FaultTopology.POLICY_STORE);
        // the store may have been restored before this processor saw any record
        IsolationPolicy stored = store.get(IsolationPolicy.KEY);
        if (stored != null) {
            current.set(stored);
        }
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.value() == null) {
            LOG.warn("ignoring a tombstone on {}: the last good policy stays in force", Topics.ISOLATION_POLICY.name());
            return;
        }
        IsolationPolicy policy;
        try {
            policy = Topics.ISOLATION_POLICY.valueSerde().fromBytes(record.value());
        } catch (SerializationException e) {
            LOG.error("rejected isolation policy (undecodable): {}; keeping {}", e.getMessage(), describe(current()));
            return;
        }
        var problems = PolicyRules.problems(policy);
        if (!problems.isEmpty()) {
            LOG.error(
                    "rejected isolation policy v{}: {}; keeping {}",
                    policy.version(),
                    String.join("; ", problems),
                    describe(current()));
            return;
        }
        store.put(IsolationPolicy.KEY, policy);
        current.set(policy);
        LOG.info("isolation policy applied: {}", describe(policy));
    }

    private IsolationPolicy current() {
        IsolationPolicy stored = store.get(IsolationPolicy.KEY);
        return stored == null ? PolicyRules.defaultPolicy() : stored;
    }

    static String describe(IsolationPolicy p) {
        return "policy v" + p.version() + " (enabled=" + p.enabled() + ", fault_window_hours=" + p.faultWindowHours()
                + ", fault_threshold=" + p.faultThreshold() + ", fault_free_hours=" + p.faultFreeHours()
                + ", dry_run=" + p.dryRun() + ", max_isolated_devices_per_cluster="
                + p.maxIsolatedDevicesPerCluster() + ")";
    }
}
