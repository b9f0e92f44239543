package io.falcon.fleetsim.kube;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public endpoint of a simulated cluster's Kubernetes API, the address GKE's getCluster gives: a TCP forwarder on
 * a port of its own in front of the API server. A cluster's endpoint can thus move (a control-plane IP rotation) or
 * disappear (the cluster deleted) while the API server and the sim's own controllers, which talk to it directly, go
 * on: closing the forwarder refuses new connections and cuts the open ones (watches included), as a control plane
 * that is no longer at that address does.
 */
public final class EndpointProxy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EndpointProxy.class);

    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private EndpointProxy(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    /** A forwarder on a free port of 127.0.0.1 to the API server at 127.0.0.1:targetPort. */
    public static EndpointProxy to(int targetPort) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            EndpointProxy proxy = new EndpointProxy(server, targetPort);
            Thread accept = new Thread(proxy::acceptLoop, "fleet-sim-endpoint-" + server.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            return proxy;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot open a cluster endpoint", e);
        }
    }

    /** "http://127.0.0.1:PORT". */
    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                log.debug("endpoint {}: API server not reachable: {}", url(), e.getMessage());
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed: the connection is over
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "fleet-sim-endpoint-pump");
        t.setDaemon(true);
        t.start();
    }

    private void closeQuietly(Socket socket) {
        open.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** The endpoint is gone: no new connection, and the open ones are cut. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        open.forEach(this::closeQuietly);
    }
}
