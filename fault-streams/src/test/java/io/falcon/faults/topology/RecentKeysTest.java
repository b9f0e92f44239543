package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecentKeysTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRepeatedKeyIsTheSameStringAndEveryKeyDecodesAsUtf8() {
        RecentKeys keys = new RecentKeys();
        String first = keys.deserialize("t", utf8("c-1"));

        assertThat(keys.deserialize("t", utf8("c-1"))).isSameAs(first).isEqualTo("c-1");
        assertThat(keys.deserialize("t", utf8("集群-2"))).isEqualTo("集群-2");
        assertThat(keys.deserialize("t", null)).isNull();
    }

    @Test
    void moreKeysThanItKeepsStillDecodeRight() {
        RecentKeys keys = new RecentKeys();
        byte[] reused = utf8("c-0");
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20; i++) {
                assertThat(keys.deserialize("t", utf8("c-" + i))).isEqualTo("c-" + i);
            }
        }
        // the kept bytes are a copy: a caller re-using its buffer does not change what a key decodes to
        keys.deserialize("t", reused);
        reused[2] = '9';
        assertThat(keys.deserialize("t", utf8("c-0"))).isEqualTo("c-0");
    }
}
