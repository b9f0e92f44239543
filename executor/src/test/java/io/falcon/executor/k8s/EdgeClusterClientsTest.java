package io.falcon.executor.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.falcon.fleetsim.FleetSim;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workload Identity for fabric8: every request carries the current token of the Google credentials. */
class EdgeClusterClientsTest {
    private HttpServer apiServer;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();

    /** Credentials whose every token is already close to expiry, so each use refreshes to a new one. */
    static final class ChangingCredentials extends GoogleCredentials {
        final AtomicInteger refreshes = new AtomicInteger();

        @Override
        public AccessToken refreshAccessToken() {
            int n = refreshes.incrementAndGet();
            // 1 minute left: inside the library's expiry margin, so refreshIfExpired() fetches a new token
            return new AccessToken("token-" + n, new Date(System.currentTimeMillis() + 60_000));
        }
    }

    @BeforeEach
    void startApiServer() throws Exception {
        apiServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        apiServer.createContext("/", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(auth == null ? "" : auth);
            byte[] body =
                    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}"
                            .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        apiServer.start();
    }

    @AfterEach
    void stop() {
        apiServer.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + apiServer.getAddress().getPort();
    }

    @Test
    void aSecondRequestUsesTheRefreshedToken() {
        ChangingCredentials creds = new ChangingCredentials();
        try (KubernetesClient client = EdgeClusterClients.build(
                url(), FleetSim.fakeCaCertificate(), EdgeClusterClients.tokenProvider(creds), "default")) {
            client.pods().inNamespace("default").list();
            client.pods().inNamespace("default").list();
        }

        assertThat(authorizations).hasSize(2);
        assertThat(authorizations.get(0)).isEqualTo("Bearer token-1");
        assertThat(authorizations.get(1)).isEqualTo("Bearer token-2");
        assertThat(creds.refreshes).hasValue(2);
    }

    @Test
    void aValidTokenIsReusedUntilItNearsExpiry() {
        GoogleCredentials creds = GoogleCredentials.create(
                new AccessToken("long-lived", new Date(System.currentTimeMillis() + 3_600_000)));
        try (KubernetesClient client =
                EdgeClusterClients.build(url(), null, EdgeClusterClients.tokenProvider(creds), "default")) {
            client.pods().inNamespace("default").list();
            client.pods().inNamespace("default").list();
        }
        assertThat(authorizations).containsExactly("Bearer long-lived", "Bearer long-lived");
    }

    @Test
    void withoutCredentialsNoAuthorizationIsSent() {
        try (KubernetesClient client = EdgeClusterClients.build(url(), null, null, "default")) {
            client.pods().inNamespace("default").list();
        }
        assertThat(authorizations).containsExactly("");
    }

    @Test
    void httpsEndpointsTrustTheClusterCa() {
        try (KubernetesClient client =
                EdgeClusterClients.build("10.0.0.1", FleetSim.fakeCaCertificate(), null, "default")) {
            assertThat(client.getConfiguration().getMasterUrl()).isEqualTo("https://10.0.0.1/");
            assertThat(client.getConfiguration().getCaCertData()).isEqualTo(FleetSim.fakeCaCertificate());
        }
    }
}
