package io.falcon.events.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class DurationTextTest {
    @Test
    void unitsAndTheirSums() {
        assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationText.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.parse("24h")).isEqualTo(Duration.ofHours(24));
        assertThat(DurationText.parse("2d")).isEqualTo(Duration.ofDays(2));
        assertThat(DurationText.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationText.parse(" 1M30S ")).isEqualTo(Duration.ofSeconds(90));
        assertThat(DurationText.parse("0s")).isEqualTo(Duration.ZERO);
    }

    @Test
    void iso8601() {
        assertThat(DurationText.parse("PT10M")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.parse("pt1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationText.parse("P1D")).isEqualTo(Duration.ofDays(1));
        assertThat(DurationText.parse("PT0.5S")).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void anythingElseIsRefusedNamingTheGrammar() {
        for (String bad : new String[] {"30", "soon", "10 m", "1.5h", "m", "", "10min", "PT", "30s10"}) {
            assertThatThrownBy(() -> DurationText.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("500ms, 30s, 10m, 24h");
        }
    }

    @Test
    void formatIsTheShortestTextOfTheGrammar() {
        assertThat(DurationText.format(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(DurationText.format(Duration.ofMillis(500))).isEqualTo("500ms");
        assertThat(DurationText.format(Duration.ofHours(24))).isEqualTo("24h");
        assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0s");
    }

    @Property
    void formatThenParseIsTheSameDuration(@ForAll @LongRange(min = 0, max = 10_000_000_000L) long millis) {
        Duration duration = Duration.ofMillis(millis);
        assertThat(DurationText.parse(DurationText.format(duration))).isEqualTo(duration);
    }
}
