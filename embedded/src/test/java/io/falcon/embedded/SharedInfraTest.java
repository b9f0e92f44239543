package io.falcon.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SharedInfraTest {

    @Test
    void uniqueNamesDifferAndAreValidTopicAndDatabaseNames() {
        Set<String> names = new HashSet<>();
        IntStream.range(0, 1000).forEach(i -> names.add(SharedInfra.uniqueName("My-Test.Case")));

        assertThat(names).hasSize(1000);
        assertThat(names)
                .allSatisfy(name -> assertThat(name).startsWith("my_test_case_").matches("[a-z0-9_]{1,64}"));
    }

    @Test
    void longPrefixesAreCutSoTheNameFitsADatabaseName() {
        assertThat(SharedInfra.uniqueName("x".repeat(200))).hasSizeLessThanOrEqualTo(64);
    }
}
