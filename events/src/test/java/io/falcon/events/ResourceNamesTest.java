package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ResourceNamesTest {
    @Test
    void shortDnsSafeIdsAreKeptReadable() {
        assertThat(ResourceNames.nodePool("job-42")).isEqualTo("falcon-job-42");
    }

    @Test
    void otherIdsGetAStableHashSuffix() {
        String name = ResourceNames.nodePool("0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718");
        assertThat(name).startsWith("falcon-0f8a3c1e-9b2d-").hasSizeLessThanOrEqualTo(40);
        assertThat(ResourceNames.nodePool("0f8a3c1e-9b2d-4c55-a1b2-c3d4e5f60718"))
                .isEqualTo(name);
        assertThat(ResourceNames.nodePool("Job_42")).isNotEqualTo(ResourceNames.nodePool("job-42"));
    }

    @Property
    void everyIdMapsToAValidNodePoolName(@ForAll String jobId) {
        String name = ResourceNames.nodePool(jobId);
        assertThat(name).matches("falcon-[a-z0-9]([a-z0-9-]*[a-z0-9])?").hasSizeLessThanOrEqualTo(40);
    }
}
