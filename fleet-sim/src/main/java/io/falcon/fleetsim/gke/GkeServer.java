package io.falcon.fleetsim.gke;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Plaintext gRPC server on 127.0.0.1 serving the GKE v1 ClusterManager API for every simulated cluster. */
public final class GkeServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GkeServer.class);

    private final Server server;

    public GkeServer(GkeFleet fleet, int port) throws IOException {
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .addService(new ClusterManagerService(fleet))
                .build()
                .start();
        log.info("GKE ClusterManager sim listening on {}", endpoint());
    }

    /** "127.0.0.1:PORT", the form gax's InstantiatingGrpcChannelProvider.setEndpoint wants. */
    public String endpoint() {
        return "127.0.0.1:" + port();
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
