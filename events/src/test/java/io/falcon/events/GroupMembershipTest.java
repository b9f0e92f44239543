package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class GroupMembershipTest {
    @Test
    void theInstanceIdIsTheConfiguredNameElseTheHostAndTheProcess() {
        assertThat(GroupMembership.instanceId(Map.of("FALCON_INSTANCE_ID", " scheduler-2 ", "HOSTNAME", "pod-a")))
                .isEqualTo("scheduler-2");
        long pid = ProcessHandle.current().pid();
        assertThat(GroupMembership.instanceId(Map.of("HOSTNAME", "pod-a"))).isEqualTo("pod-a-" + pid);
        assertThat(GroupMembership.instanceId(Map.of("FALCON_INSTANCE_ID", " ", "HOSTNAME", "pod-a")))
                .isEqualTo("pod-a-" + pid);
    }

    @Test
    void aStaticMemberCarriesItsIdAndKeepsTheRest() {
        Map<String, Object> props = GroupMembership.staticMember(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "g"), "x-1");
        assertThat(props)
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "x-1")
                .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "g");
    }
}
