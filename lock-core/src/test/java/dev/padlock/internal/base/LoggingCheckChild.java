package dev.padlock.internal.base;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * {@link LoggingCheckTest}'s child JVM: creates two clients that start without Redis (on a
 * loopback port nobody listens on) and closes them.
 */
public final class LoggingCheckChild {
    private LoggingCheckChild() {
    }

    public static void main(String[] args) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        }
        for (int i = 0; i < 2; i++) {
            try (LockClient client = LockClient.create(LockConfig.builder()
                    .redisUri("redis://127.0.0.1:" + port).startWithoutRedis(true).build())) {
                client.getId();
            }
        }
    }
}
