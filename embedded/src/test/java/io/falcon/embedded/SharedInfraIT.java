package io.falcon.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SharedInfraIT {

    @Test
    void startsEachServerOncePerJvm() {
        assertThat(SharedInfra.kafka()).isSameAs(SharedInfra.kafka());
        assertThat(SharedInfra.mariaDb()).isSameAs(SharedInfra.mariaDb());
        assertThat(SharedInfra.mariaDb().isRunning()).isTrue();
    }
}
