package io.falcon.executor;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class FalconLabelsTest {
    @Test
    void sanitizes() {
        assertThat(FalconLabels.sanitize("Job_42.A")).isEqualTo("job_42-a");
        assertThat(FalconLabels.sanitize("--x--")).isEqualTo("x");
        assertThat(FalconLabels.sanitize("a".repeat(80))).hasSize(63);
    }

    @Property
    void alwaysAValidLabelValue(@ForAll String anything) {
        String v = FalconLabels.sanitize(anything);
        assertThat(v).matches("([a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?)?");
    }
}
