package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for {@link RedisServerProcess}: an ephemeral port from a {@link ServerSocket},
 * a second one for a TLS listener, or one with room for a cluster bus port. A port found free can be
 * taken before the server binds it; the caller retries a start that fails so.
 */
final class FreePorts {

    private static final int CANDIDATES = 50;
    private static final int LOWEST_RANDOM_PORT = 10_000;

    private FreePorts() {
    }

    /** An ephemeral port free on {@link RedisServerProcess#HOST} a moment ago. */
    static int any() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port on " + RedisServerProcess.HOST, e);
        }
    }

    /** A free port other than {@code taken}; a bounded number of candidates. */
    static int otherThan(int taken) {
        for (int attempt = 0; attempt < CANDIDATES; attempt++) {
            int candidate = any();
            if (candidate != taken) {
                return candidate;
            }
        }
        throw new IllegalStateException("No second free port on " + RedisServerProcess.HOST);
    }

    /**
     * A free port whose bus port (+ 10000) is at most 65535 and free too: an ephemeral port when
     * it fits, else a random one below the limit; a bounded number of candidates.
     */
    static int withBusPort() {
        int highest = 65_535 - RedisLaunchOptions.CLUSTER_BUS_OFFSET;
        for (int attempt = 0; attempt < CANDIDATES; attempt++) {
            int candidate = attempt % 2 == 0
                    ? any()
                    : ThreadLocalRandom.current().nextInt(LOWEST_RANDOM_PORT, highest + 1);
            if (candidate <= highest && candidate != 6379 && isFree(candidate)
                    && isFree(candidate + RedisLaunchOptions.CLUSTER_BUS_OFFSET)) {
                return candidate;
            }
        }
        throw new IllegalStateException("No free port on " + RedisServerProcess.HOST
                + " with a free cluster bus port after " + CANDIDATES + " candidates");
    }

    private static boolean isFree(int candidate) {
        try (ServerSocket socket = new ServerSocket(candidate, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
            return socket.getLocalPort() == candidate;
        } catch (IOException e) {
            return false;
        }
    }
}
