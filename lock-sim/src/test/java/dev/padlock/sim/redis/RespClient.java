package dev.padlock.sim.redis;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain RESP2 connection to a real server, for the differential test: replies come back in
 * the model's types ({@code Long}, {@code String}, {@link Status}, {@code List}, null), and an
 * error reply as a {@link ErrorReply}, so nothing a client library does to replies hides a
 * difference. Blocking, one command at a time; not thread-safe.
 */
final class RespClient implements AutoCloseable {

    /** An error reply, with its full text. */
    record ErrorReply(String text) {
        String code() {
            int space = text.indexOf(' ');
            return space < 0 ? text : text.substring(0, space);
        }
    }

    private static final int TIMEOUT_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespClient(String uri) {
        URI parsed = URI.create(uri);
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(parsed.getHost(), parsed.getPort()), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = new BufferedOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot connect to " + uri, e);
        }
    }

    /** Sends one command and reads its reply. */
    Object call(List<String> argv) {
        try {
            out.write(("*" + argv.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : argv) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write('\r');
                out.write('\n');
            }
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException("Redis call " + argv + " failed", e);
        }
    }

    Object call(String... argv) {
        return call(List.of(argv));
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        return switch (type) {
            case '+' -> new Status(line);
            case '-' -> new ErrorReply(line);
            case ':' -> Long.parseLong(line);
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    yield null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                yield new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    yield null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                yield items;
            }
            default -> throw new IOException("Unexpected RESP type " + type + " (" + line + ")");
        };
    }

    private String line() throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("Connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = buffer.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            buffer.write(b);
            previous = b;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
