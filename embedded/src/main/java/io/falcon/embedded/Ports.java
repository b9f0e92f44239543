package io.falcon.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Loopback port helpers shared by the embedded servers. */
public final class Ports {

    static final String LOOPBACK = "127.0.0.1";

    private Ports() {}

    /** A port that is free right now; a tiny race remains until the server binds it. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port on " + LOOPBACK, e);
        }
    }

    /** Returns the given port if it is free, a free port if it is 0; fails fast with a clear message otherwise. */
    static int resolve(int port, String what) {
        if (port == 0) {
            return freePort();
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(what + " port out of range: " + port);
        }
        requireFree(port, what);
        return port;
    }

    static void requireFree(int port, String what) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(LOOPBACK, port));
        } catch (IOException e) {
            throw new IllegalStateException(what + " port " + port + " on " + LOOPBACK + " is already in use", e);
        }
    }
}
