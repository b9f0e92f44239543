package io.falcon.faults.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.falcon.events.Json;
import io.falcon.events.fault.DeviceFault;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class HeldPageTest {
    private static DeviceFault fault(int i) {
        return DeviceFault.of("c1", "n" + i, "npu-" + i % 8, "CODE", Optional.of("job-" + i % 3), 1_000L + i);
    }

    @Test
    void aPageStoresTheFaultsStillHeldInArrivalOrder() {
        HeldPage page = new HeldPage(HeldPage.key(7));
        for (int i = 0; i < 5; i++) {
            assertThat(page.add(BinaryCodec.encode(fault(i)))).isEqualTo(i);
        }
        page.release(1);
        page.release(3);
        page.release(3);

        assertThat(page.held()).isEqualTo(3);
        assertThat(HeldPage.decode(page.encode())).containsExactly(fault(0), fault(2), fault(4));
        assertThat(HeldPage.number(page.key())).isEqualTo(7);
    }

    @Test
    void aPageIsFullAtItsSize() {
        HeldPage page = new HeldPage(HeldPage.key(0));
        for (int i = 0; i < HeldPage.SIZE; i++) {
            assertThat(page.full()).isFalse();
            page.add(BinaryCodec.encode(fault(i)));
        }
        assertThat(page.full()).isTrue();
        assertThat(HeldPage.decode(page.encode())).hasSize(HeldPage.SIZE);
    }

    @Test
    void pageKeysSortByNumberAndAreNeverKeysOfTheEarlierLayout() {
        assertThat(HeldPage.key(9)).isLessThan(HeldPage.key(10));
        assertThat(HeldPage.number("c1\u0000job-1\u00000000000000000001000\u00000000000000000000004"))
                .isEqualTo(-1);
    }

    @Test
    void aValueOfTheEarlierLayoutIsOneFaultBinaryOrJson() throws Exception {
        assertThat(HeldPage.decode(BinaryCodec.encode(fault(1)))).containsExactly(fault(1));
        assertThat(HeldPage.decode(Json.mapper().writeValueAsBytes(fault(2)))).containsExactly(fault(2));
        assertThat(List.of(new byte[] {HeldPage.PAGE_V1, 0, 0, 0, 2, 0, 0, 0, 9}))
                .allSatisfy(bad ->
                        assertThatThrownBy(() -> HeldPage.decode(bad)).isInstanceOf(SerializationException.class));
    }
}
