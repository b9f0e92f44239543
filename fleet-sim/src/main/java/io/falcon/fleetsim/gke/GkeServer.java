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
    private final io.grpc.netty.shaded.io.netty.channel.EventLoopGroup boss;
    private final io.grpc.netty.shaded.io.netty.channel.EventLoopGroup workers;
    private final java.util.concurrent.ExecutorService callThreads;

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
        // threads of its own, not gRPC's shared defaults, which the executor's GKE client in the same JVM uses
        this.boss = new io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup(
                1, io.falcon.fleetsim.SimThreads.named("fleet-sim-gke-grpc-boss"));
        this.workers = new io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup(
                2, io.falcon.fleetsim.SimThreads.named("fleet-sim-gke-grpc-worker"));
        this.callThreads = io.falcon.fleetsim.SimThreads.cachedPool("fleet-sim-gke-call");
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .channelType(io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel.class)
                .executor(callThreads)
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
        callThreads.shutdownNow();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
