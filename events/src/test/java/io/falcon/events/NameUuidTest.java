package io.falcon.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class NameUuidTest {
    @Property(tries = 2000)
    void isTheJdksNameBasedUuid(@ForAll String name) {
        assertThat(NameUuid.of(name))
                .isEqualTo(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8))
                        .toString());
    }

    @Test
    void aKnownNameGivesItsVersion3Uuid() {
        String id = NameUuid.of("c1/node-1/npu-0/8C084E00/job-1/1770811685650");
        assertThat(UUID.fromString(id).version()).isEqualTo(3);
        assertThat(UUID.fromString(id).variant()).isEqualTo(2);
        // the same name twice, the second on the reused digest
        assertThat(NameUuid.of("c1/node-1/npu-0/8C084E00/job-1/1770811685650")).isEqualTo(id);
        assertThat(NameUuid.of(""))
                .isEqualTo(UUID.nameUUIDFromBytes(new byte[0]).toString());
    }
}
