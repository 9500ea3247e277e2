package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Signals to one child process, sent to its own PID only ({@code kill -STOP}, {@code -CONT}), and
 * the bounded waits around them: for a state in {@code /proc}, for exit (SIGKILL when it does not
 * come), and between polls. An interrupt is never swallowed.
 */
final class ProcessControl {

    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(5);
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

    /** On Linux, waits (bounded) until /proc says the process is in {@code state}. */
    static void awaitState(Process target, char state) {
        Path stat = Path.of("/proc", String.valueOf(target.pid()), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + STATE_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                String text = Files.readString(stat, StandardCharsets.US_ASCII);
                int afterName = text.lastIndexOf(')');
                if (afterName > 0 && afterName + 2 < text.length() && text.charAt(afterName + 2) == state) {
                    return;
                }
            } catch (IOException e) {
                return;
            }
            sleep(Duration.ofMillis(5));
        }
        throw new IllegalStateException("pid " + target.pid() + " did not reach state " + state);
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
