package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Start estimates over several slots: each waiting job in pick order takes the slot that frees soonest. */
class SlotChainTest {
    private static QueueHistory.Spread spread(double mean, double variance) {
        return new QueueHistory.Spread(mean, variance);
    }

    @Test
    void withOneSlotTheHoldsAddUpOneAfterAnother() {
        StartEstimates.SlotChain chain = new StartEstimates.SlotChain(List.of(spread(100, 10)));

        assertThat(chain.take(spread(50, 5))).isEqualTo(spread(150, 15));
        assertThat(chain.take(spread(50, 5))).isEqualTo(spread(200, 20));
    }

    @Test
    void eachJobTakesTheSlotThatFreesSoonestAndThatSlotFreesAgainWhenItsPodsRun() {
        // a holder with 300 left, a free slot, and one with 100 left
        StartEstimates.SlotChain chain =
                new StartEstimates.SlotChain(List.of(spread(300, 0), QueueHistory.Spread.NONE, spread(100, 0)));

        assertThat(chain.soonest()).isEqualTo(QueueHistory.Spread.NONE);
        assertThat(chain.take(spread(400, 0)).mean()).isEqualTo(400); // the free slot
        assertThat(chain.take(spread(400, 0)).mean()).isEqualTo(500); // after the 100
        assertThat(chain.take(spread(400, 0)).mean()).isEqualTo(700); // after the 300
        assertThat(chain.take(spread(400, 0)).mean()).isEqualTo(800); // the first slot again, at 400
        assertThat(chain.size()).isEqualTo(3);
    }
}
