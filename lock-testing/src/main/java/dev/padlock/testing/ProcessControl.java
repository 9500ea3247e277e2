package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Signals to one child process, sent to its own PID only ({@code kill -STOP}, {@code -CONT}), and
 * the bounded waits around them: for a state in {@code /proc}, for exit (SIGKILL when it does not
 * come), and between polls. An interrupt is never swallowed.
 */
final class ProcessControl {

    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

    private ProcessControl() {
    }

    /** Runs {@code kill -<signal> <pid of target>}, bounded. */
    static void signal(Process target, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(target.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(SIGNAL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + target.pid() + " hung");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + target.pid()
                        + " exited with " + kill.exitValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signal, e);
        }
    }

    /**
     * On Linux, waits until every thread of {@code target} is stopped ({@code T} or {@code t} in
     * its {@code /proc/<pid>/task/<tid>/stat}; one that ended, {@code Z} or {@code X}, runs no
     * more), at most {@code within}: a hang bound. {@code kill}
     * returns once SIGSTOP is queued, and the process stops when one of its threads takes it, which
     * on a busy machine can be milliseconds later, while its other threads still run. Elsewhere
     * (no {@code /proc}) it returns at once.
     */
    static void awaitStopped(Process target, Duration within) {
        Path tasks = Path.of("/proc", String.valueOf(target.pid()), "task");
        if (!Files.isDirectory(tasks)) {
            return;
        }
        long deadline = System.nanoTime() + within.toNanos();
        String running = "";
        while (System.nanoTime() - deadline < 0) {
            running = runningThreads(tasks);
            if (running.isEmpty() || !target.isAlive()) {
                return;
            }
            sleep(Duration.ofMillis(2));
        }
        throw new IllegalStateException("pid " + target.pid() + " was sent SIGSTOP, but threads of it still ran after "
                + within + ": " + running);
    }

    /** The threads under {@code tasks} that are not stopped, as {@code "<tid>=<state>"}; empty when none. */
    private static String runningThreads(Path tasks) {
        StringBuilder running = new StringBuilder();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                char state;
                try {
                    String text = Files.readString(thread.resolve("stat"), StandardCharsets.US_ASCII);
                    int afterName = text.lastIndexOf(')');
                    state = afterName > 0 && afterName + 2 < text.length() ? text.charAt(afterName + 2) : '?';
                } catch (IOException gone) {
                    continue; // the thread ended
                }
                if (state != 'T' && state != 't' && state != 'Z' && state != 'X') { // stopped, or ended
                    running.append(running.length() == 0 ? "" : " ").append(thread.getFileName()).append('=').append(state);
                }
            }
        } catch (IOException | UncheckedIOException gone) {
            return ""; // the process ended
        }
        return running.toString();
    }

    /** Waits 10 s for exit, then sends SIGKILL and waits 10 s more; never swallows an interrupt. */
    static void awaitExit(Process target) {
        if (waitUninterruptibly(target, EXIT_TIMEOUT)) {
            return;
        }
        target.destroyForcibly();
        if (!waitUninterruptibly(target, EXIT_TIMEOUT)) {
            throw new IllegalStateException("pid " + target.pid() + " survived SIGKILL for " + EXIT_TIMEOUT);
        }
    }

    /** The pause between two polls of a server; an interrupt ends it with an exception. */
    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", e);
        }
    }

    private static boolean waitUninterruptibly(Process target, Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return target.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
