package dev.padlock.bench;

import dev.padlock.testing.RedisAdmin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Counts the top-level commands clients send, with {@code MONITOR} on a plain socket of its own
 * to each server (each master of a cluster), summed: {@code INFO stats total_commands_processed}
 * cannot, since Redis 7.0 counts the {@code redis.call}s inside scripts there too, and
 * {@code MONITOR} marks those with {@code [<db> lua]}. Used only in short calibration passes,
 * never while throughput is measured.
 *
 * <p>{@link #finish} sends an {@code ECHO} of a unique marker on each server's admin connection
 * and counts the lines before it; the admin connections must send nothing else meanwhile.
 * Servers with a password are not supported. Each reader thread owns its socket's input; the
 * counts are atomic.
 */
final class MonitorCounter implements AutoCloseable {

    private static final Pattern SCRIPT_CALL = Pattern.compile("^\\+?[0-9.]+ \\[\\d+ lua\\]");
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final String marker = "bench-monitor-end-" + UUID.randomUUID();
    private final List<Tap> taps = new ArrayList<>();

    private MonitorCounter() {
    }

    /**
     * Sends {@code MONITOR} to the server of each admin connection and waits for its {@code +OK}.
     */
    static MonitorCounter start(List<RedisAdmin> admins) {
        MonitorCounter counter = new MonitorCounter();
        try {
            for (RedisAdmin admin : admins) {
                counter.taps.add(counter.new Tap(admin));
            }
            return counter;
        } catch (RuntimeException e) {
            counter.close();
            throw e;
        }
    }

    /** Marks the end of the pass and returns the top-level commands seen before the mark, on all servers. */
    long finish() {
        long total = 0;
        for (Tap tap : taps) {
            total += tap.finish();
        }
        return total;
    }

    @Override
    public void close() {
        taps.forEach(Tap::close);
    }

    /** The {@code MONITOR} of one server. */
    private final class Tap {

        private final RedisAdmin admin;
        private final Socket socket;
        private final AtomicLong topLevel = new AtomicLong();
        private final CountDownLatch markerSeen = new CountDownLatch(1);
        private volatile IOException failure;

        /** Connects, sends {@code MONITOR} and waits for its {@code +OK}. */
        Tap(RedisAdmin admin) {
            this.admin = admin;
            URI uri = URI.create(admin.uri());
            this.socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()),
                        (int) TIMEOUT.toMillis());
                socket.setSoTimeout((int) TIMEOUT.toMillis());
                OutputStream out = socket.getOutputStream();
                out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                        StandardCharsets.UTF_8));
                String ok = in.readLine();
                if (!"+OK".equals(ok)) {
                    throw new IllegalStateException("MONITOR answered " + ok);
                }
                Thread reader = new Thread(() -> read(in), "bench-monitor-" + uri.getPort());
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                close();
                throw new UncheckedIOException("Cannot MONITOR " + admin.uri(), e);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        long finish() {
            admin.commands().echo(marker);
            try {
                if (!markerSeen.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("MONITOR of " + admin.uri() + " did not show the end marker within "
                            + TIMEOUT + (failure != null ? ": " + failure : ""));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while reading MONITOR", e);
            }
            return topLevel.get();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // Nothing to do: the socket is being dropped.
            }
        }

        private void read(BufferedReader in) {
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.contains(marker)) {
                        markerSeen.countDown();
                        return;
                    }
                    if (!SCRIPT_CALL.matcher(line).find()) {
                        topLevel.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
    }
}
