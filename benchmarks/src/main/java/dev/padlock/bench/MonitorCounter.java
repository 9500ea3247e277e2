package dev.padlock.bench;

import dev.padlock.spi.LockKeys;
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
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Counts the top-level commands clients send, with {@code MONITOR} on a plain socket of its own
 * to each server (each master of a cluster), summed: {@code INFO stats total_commands_processed}
 * cannot, since Redis 7.0 counts the {@code redis.call}s inside scripts there too, and
 * {@code MONITOR} marks those with {@code [<db> lua]}. Used only in short calibration passes,
 * never while throughput is measured.
 *
 * <p>Given lock names, it also counts the scripts whose last call is {@code PTTL} of one of them
 * ({@link #scriptsEndingWithPttl}), which is how both libraries' acquire scripts end an attempt
 * that did not acquire. The lines of one script are contiguous ({@code MONITOR} shows the
 * script's own line, then its calls), so its last call is the {@code [<db> lua]} line right
 * before a line that is not one.
 *
 * <p>{@link #finish} sends an {@code ECHO} of a unique marker on each server's admin connection
 * and counts the lines before it; the admin connections must send nothing else meanwhile.
 * Servers with a password are not supported. Each reader thread owns its socket's input; the
 * counts are atomic.
 */
final class MonitorCounter implements AutoCloseable {

    private static final Pattern SCRIPT_CALL = Pattern.compile("^\\+?[0-9.]+ \\[\\d+ lua\\]");
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /**
     * How long a server may send nothing to the {@code MONITOR} while a pass runs: longer than a
     * pause that waits for an acquisition until a lease would have run out (30 s).
     */
    private static final Duration QUIET_TIMEOUT = Duration.ofMinutes(3);

    private final String marker = "bench-monitor-end-" + UUID.randomUUID();
    private final List<Tap> taps = new ArrayList<>();
    private final Collection<String> lockNames;

    private MonitorCounter(Collection<String> lockNames) {
        this.lockNames = List.copyOf(lockNames);
    }

    /**
     * Sends {@code MONITOR} to the server of each admin connection and waits for its {@code +OK}.
     */
    static MonitorCounter start(List<RedisAdmin> admins) {
        return start(admins, List.of());
    }

    /**
     * {@link #start(List)}, also counting the scripts that end with {@code PTTL} of one of
     * {@code lockNames} (plain names, as {@code MONITOR} shows them without escapes).
     */
    static MonitorCounter start(List<RedisAdmin> admins, Collection<String> lockNames) {
        MonitorCounter counter = new MonitorCounter(lockNames);
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

    /**
     * The scripts seen before the mark whose last call was {@code PTTL} of one of the lock names,
     * on all servers; call after {@link #finish}.
     */
    long scriptsEndingWithPttl() {
        return taps.stream().mapToLong(tap -> tap.lines.endingWithPttl()).sum();
    }

    @Override
    public void close() {
        taps.forEach(Tap::close);
    }

    /** The {@code MONITOR} of one server. */
    private final class Tap {

        private final RedisAdmin admin;
        private final Socket socket;
        private final Lines lines = new Lines(lockNames);
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
                socket.setSoTimeout((int) QUIET_TIMEOUT.toMillis());
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
            return lines.topLevel();
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
                        lines.end();
                        markerSeen.countDown();
                        return;
                    }
                    lines.accept(line);
                }
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    /**
     * Counts one server's {@code MONITOR} lines as they come: the top-level commands, and the
     * scripts whose last call is {@code PTTL} of one of the lock names. One thread feeds it; the
     * counts may be read from any.
     */
    static final class Lines {

        /**
         * {@code "pttl" "<lock>"} for each lock name, and the same of its read-write gate (where a
         * Padlock reader that yields to a writer ends its attempt), lower case, as {@code MONITOR}
         * quotes a script's call.
         */
        private final Set<String> pttlCalls;
        private final AtomicLong topLevel = new AtomicLong();
        private final AtomicLong endingWithPttl = new AtomicLong();
        private boolean afterPttl;

        Lines(Collection<String> lockNames) {
            this.pttlCalls = lockNames.stream()
                    .flatMap(name -> java.util.stream.Stream.of(name, LockKeys.readWriteGate(name)))
                    .map(key -> ("\"pttl\" \"" + key + "\"").toLowerCase(Locale.ROOT))
                    .collect(Collectors.toSet());
        }

        /** Takes the next line. */
        void accept(String line) {
            Matcher script = SCRIPT_CALL.matcher(line);
            if (script.find()) {
                afterPttl = !pttlCalls.isEmpty()
                        && pttlCalls.contains(line.substring(script.end()).trim().toLowerCase(Locale.ROOT));
                return;
            }
            end();
            topLevel.incrementAndGet();
        }

        /** Ends the script under way, if any: at a top-level line or at the end of the pass. */
        void end() {
            if (afterPttl) {
                endingWithPttl.incrementAndGet();
            }
            afterPttl = false;
        }

        long topLevel() {
            return topLevel.get();
        }

        long endingWithPttl() {
            return endingWithPttl.get();
        }
    }
}
