package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ResourceNamesTest {
    private static final String FALCON = ResourceNames.DEFAULT_INSTALLATION;

    @Test
    void aNameIsAReadableHeadAndSixtyFourBitsOfHash() {
        String name = ResourceNames.nodePool(FALCON, "0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718");
        assertThat(name).matches("falcon-0f8a3c1e-9b2d-4-[0-9a-f]{16}").hasSizeLessThanOrEqualTo(40);
        assertThat(ResourceNames.nodePool(FALCON, "0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718"))
                .as("stable: a redelivered command finds what the first created")
                .isEqualTo(name);
        assertThat(ResourceNames.nodePool(FALCON, "Job_42")).isNotEqualTo(ResourceNames.nodePool(FALCON, "job-42"));
    }

    @Test
    void anIdThatIsAnotherJobsNameDoesNotGetThatName() {
        String victim = ResourceNames.nodePool(FALCON, "train-7");
        String k8sVictim = ResourceNames.k8sJob(FALCON, "train-7");
        // the tenant submits the victim's names (seen in its row) as job ids of its own
        assertThat(ResourceNames.nodePool(FALCON, victim)).isNotEqualTo(victim);
        assertThat(ResourceNames.k8sJob(FALCON, k8sVictim)).isNotEqualTo(k8sVictim);
        assertThat(ResourceNames.nodePool(FALCON, victim.substring(ResourceNames.PREFIX.length())))
                .isNotEqualTo(victim);
        // and a short DNS-label id does not name itself either
        assertThat(ResourceNames.nodePool(FALCON, "job-42")).isNotEqualTo("falcon-job-42");
    }

    @Test
    void twoInstallationsNameOneJobIdDifferently() {
        assertThat(ResourceNames.nodePool("falcon", "train-7"))
                .isNotEqualTo(ResourceNames.nodePool("falcon-b", "train-7"));
        assertThat(ResourceNames.k8sJob("falcon", "train-7")).isNotEqualTo(ResourceNames.k8sJob("falcon-b", "train-7"));
    }

    @Property
    void everyIdMapsToAValidNodePoolName(@ForAll String jobId) {
        String name = ResourceNames.nodePool(FALCON, jobId);
        assertThat(name).matches("falcon-[a-z0-9]([a-z0-9-]*[a-z0-9])?").hasSizeLessThanOrEqualTo(40);
    }
}
