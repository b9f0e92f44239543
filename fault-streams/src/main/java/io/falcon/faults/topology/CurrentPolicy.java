package io.falcon.faults.topology;

import io.falcon.events.fault.IsolationPolicy;
import io.falcon.faults.core.PolicyRules;

/**
 * The policy in force, decoded once per published version: the global store's processor sets it, the stages read
 * it on every record (reading the global store would decode the policy's JSON per record). One per topology
 * instance; the RFC's default until a policy is applied.
 */
final class CurrentPolicy {
    private volatile IsolationPolicy policy = PolicyRules.defaultPolicy();

    IsolationPolicy get() {
        return policy;
    }

    void set(IsolationPolicy applied) {
        policy = applied;
    }
}
