package dev.padlock.testing;

import java.time.Duration;

/**
 * Pauses a child process as a stalled host or a long GC pause would, by signals to its own PID
 * only: SIGSTOP, then SIGCONT. {@link #stop} returns once every thread of the process is stopped,
 * not when the signal is sent: {@code kill} returns once SIGSTOP is queued, and on a busy machine
 * the process's threads can run on for milliseconds after that (reading a message, answering a
 * caller). A test that acts "while it is stopped" must know that it is.
 */
public final class ProcessPause {
    /** How long a stop may take before it counts as hung: a bound, never a wait. */
    static final Duration STOPPED_WITHIN = Duration.ofSeconds(60);

    private ProcessPause() {
    }

    /**
     * Sends SIGSTOP to {@code process} and waits until every thread of it is stopped (on Linux, as
     * {@code /proc} says; elsewhere, until {@code kill} returned).
     *
     * @throws IllegalStateException when {@code kill} fails (the process is gone) or a thread still
     *     runs after a minute
     */
    public static void stop(Process process) {
        ProcessControl.signal(process, "STOP");
        ProcessControl.awaitStopped(process, STOPPED_WITHIN);
    }

    /**
     * Sends SIGCONT to {@code process}.
     *
     * @throws IllegalStateException when {@code kill} fails (the process is gone)
     */
    public static void resume(Process process) {
        ProcessControl.signal(process, "CONT");
    }
}
