package io.falcon.fleetsim.gke;

import io.falcon.fleetsim.ApiCalls;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
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

    private static final Metadata.Key<String> USER_AGENT =
            Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

    public GkeServer(GkeFleet fleet, int port) throws IOException {
        this(fleet, port, new ApiCalls());
    }

    /** As above, noting every call it serves (full gRPC method name) in calls. */
    public GkeServer(GkeFleet fleet, int port, ApiCalls calls) throws IOException {
        this(fleet, port, calls, new io.falcon.fleetsim.ApiLatency());
    }

    /** As above, each call answered only after the GKE latency (on the server's call executor, a cached pool). */
    public GkeServer(GkeFleet fleet, int port, ApiCalls calls, io.falcon.fleetsim.ApiLatency latency)
            throws IOException {
        ServerInterceptor noteCall = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                calls.add(
                        ApiCalls.Api.GKE, call.getMethodDescriptor().getFullMethodName(), "", headers.get(USER_AGENT));
                ServerCall.Listener<Q> listener = next.startCall(call, headers);
                return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<Q>(listener) {
                    @Override
                    public void onHalfClose() {
                        io.falcon.fleetsim.ApiLatency.pause(latency.gke());
                        super.onHalfClose();
                    }
                };
            }
        };
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .addService(ServerInterceptors.intercept(new ClusterManagerService(fleet), noteCall))
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
