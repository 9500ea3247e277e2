package dev.padlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A minimal blocking RESP probe over a plain socket: no client library, no reconnects, no
 * background threads. Used to tell whether a server answers, with a hard timeout.
 */
final class RespProbe {

    private RespProbe() {
    }

    /**
     * Sends {@code PING} and returns whether {@code +PONG} came back within {@code timeout}
     * (connect and read each bounded by it). Never throws for network failures.
     */
    static boolean ping(String host, int port, Duration timeout) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int read = 0;
            while (read < reply.length) {
                int n = in.read(reply, read, reply.length - read);
                if (n < 0) {
                    return false;
                }
                read += n;
            }
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }
}
