package dev.padlock.tests.soak;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * One worker's event log: a text file, one event a line, fields separated by single spaces, the
 * free-text message (when any) last. Times are wall-clock microseconds since the epoch
 * ({@link #nowMicros()}), so that the events of several processes on one machine can be put on
 * one time line; {@code System.nanoTime()} is not comparable across processes.
 *
 * <p>Lines, by their first word (p = worker process index, t = thread index, seq = the thread's
 * acquisition number):
 * <pre>
 * START  us pid
 * THREAD t javaThreadId
 * WAITSTOP t attemptUs us          (told the controller, at us, that t's acquisition since attemptUs goes on)
 * HOLD   t seq us                   (keeps this hold until the controller lets it go)
 * LETGO  t seq us true|false        (let go by the controller, or not within the bound)
 * ACQ    t seq op waitMs leaseMs attemptUs toldUs returnedUs token|-
 * STALL  t seq us ms
 * WRITE  t seq startUs endUs token A|R previousMax
 * REL    t seq startUs endUs OK|NOT_HELD|exceptionKind
 * TIMEOUT t op waitMs leaseMs attemptUs toldUs
 * FAIL   t op waitMs leaseMs attemptUs toldUs kind message
 * STRAY  t UNLOCK|FAIL|TIMEOUT us   (Redis says the thread holds the lock after it unlocked its
 *                                   only hold, or after it was told it did not get it)
 * LOST   us javaThreadId
 * END    us acquisitions
 * </pre>
 * {@code toldUs} is when the acquisition's future completed, stamped in its callback;
 * {@code returnedUs} when the thread that joined it woke. A wait of {@code -1} is a call without a
 * wait bound ({@code lock()}); a lease of {@code 0} is a watchdog lease. Thread-safe: every line is written under this object's lock.
 */
final class SoakLog implements AutoCloseable {

    private final BufferedWriter out;

    SoakLog(Path file) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
    }

    /** Wall-clock microseconds since the epoch. */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    synchronized void write(Object... fields) {
        try {
            for (int i = 0; i < fields.length; i++) {
                if (i > 0) {
                    out.write(' ');
                }
                out.write(String.valueOf(fields[i]).replace('\n', ' ').replace('\r', ' '));
            }
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
