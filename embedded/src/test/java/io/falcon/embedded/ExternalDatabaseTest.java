package io.falcon.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExternalDatabaseTest {
    @Test
    void theUrlsSchemeIsTheFlavorAndItsHostAndPortTheServer() {
        ExternalDatabase mysql = ExternalDatabase.of("jdbc:mysql://db.example:3307/ignored?useSSL=true", "root", "pw");
        assertThat(mysql.flavor()).isEqualTo(Database.Flavor.MYSQL);
        assertThat(mysql.flavor().setting()).isEqualTo("mysql");
        assertThat(mysql.host()).isEqualTo("db.example");
        assertThat(mysql.port()).isEqualTo(3307);
        assertThat(mysql.jdbcUrl("e2e_1")).isEqualTo("jdbc:mysql://db.example:3307/e2e_1");

        ExternalDatabase maria = ExternalDatabase.of("jdbc:mariadb://localhost", "falcon", "");
        assertThat(maria.flavor()).isEqualTo(Database.Flavor.MARIADB);
        assertThat(maria.port()).isEqualTo(3306);
        assertThat(maria.toString()).doesNotContain("pw");
        assertThat(mysql.toString()).doesNotContain("pw");
    }

    @Test
    void otherUrlsAreRefused() {
        assertThatThrownBy(() -> ExternalDatabase.of("jdbc:postgresql://h:5432/db", "u", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:mysql://HOST[:PORT]");
        assertThatThrownBy(() ->
                        ExternalDatabase.of("jdbc:mysql://h:3306", "u", "p").createDatabase("x; DROP"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sharedInfraRunsOnTheServerAndBrokerTheSystemPropertiesName() {
        try {
            System.setProperty(SharedInfra.DB_URL_PROPERTY, "jdbc:mysql://127.0.0.1:33060");
            System.setProperty(SharedInfra.DB_PASSWORD_PROPERTY, "secret");
            System.setProperty(SharedInfra.KAFKA_PROPERTY, "127.0.0.1:19092");

            Database db = SharedInfra.database();
            assertThat(db.flavor()).isEqualTo(Database.Flavor.MYSQL);
            assertThat(db.user()).isEqualTo("root");
            assertThat(db.password()).isEqualTo("secret");
            assertThat(db.port()).isEqualTo(33060);
            assertThat(SharedInfra.broker().bootstrapServers()).isEqualTo("127.0.0.1:19092");
        } finally {
            System.clearProperty(SharedInfra.DB_URL_PROPERTY);
            System.clearProperty(SharedInfra.DB_PASSWORD_PROPERTY);
            System.clearProperty(SharedInfra.KAFKA_PROPERTY);
        }
    }
}
