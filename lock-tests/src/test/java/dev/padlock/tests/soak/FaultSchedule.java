package dev.padlock.tests.soak;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * A seeded fault schedule: which fault, when (an offset from the go signal), for how long, and on
 * which worker. The same seed, duration and worker count give the same schedule. Every kind comes
 * once, in a seeded order, before any comes twice, so that a short run sees each of them; faults
 * never overlap each other, and the last one ends {@link #QUIET_TAIL_MS} before the run does, so
 * the workers' last unlocks happen on a healthy server.
 */
record FaultSchedule(long seed, List<Fault> faults) {

    /** No fault starts before this offset: the workers warm up. */
    static final long WARM_UP_MS = 3_000;
    /** No fault is in progress during the last this many milliseconds of the run. */
    static final long QUIET_TAIL_MS = 6_000;

    enum Kind {
        /** The next fixed-lease holder of the target worker sleeps past its lease inside the lock. */
        HOLDER_STALL,
        /** SIGSTOP of the target worker's JVM for longer than the watchdog lease, then SIGCONT. */
        WORKER_STOP,
        /**
         * As {@link #WORKER_STOP}, but while another worker keeps the lock, {@link Fault#leadMs()}
         * after one of the target worker's threads began to wait for it (the worker says which,
         * when armed); the holder is let go once the stop is sent. So the lock is granted on while
         * the waiter's JVM is stopped, a grant to it runs out, and it reads that grant as it
         * resumes. See {@code SoakRun}.
         */
        WAITER_STOP,
        /** {@code CLIENT KILL} of every normal and pub/sub connection but the controller's. */
        CLIENT_KILL,
        /** SIGSTOP of the redis-server, then SIGCONT. */
        SERVER_PAUSE,
        /**
         * SIGKILL of the redis-server (in half of them, seeded, after it hung for 150–400 ms under
         * SIGSTOP, as a supervisor kills a hung server: the commands sent meanwhile are unread and
         * their connections are reset), a while down, and a new one on the same port with no data.
         */
        RESTART,
        /** {@code SCRIPT FLUSH}: the next {@code EVALSHA} of every script answers NOSCRIPT. */
        SCRIPT_FLUSH
    }

    /**
     * One fault.
     *
     * @param offsetMs when it starts, from the go signal
     * @param durationMs how long it lasts (the stall's length, the time stopped, or hung and down);
     *     0 for an instant one
     * @param worker the target worker's index, or -1 when it targets the server
     * @param leadMs for a restart, how long the server is stopped (SIGSTOP) before it is killed (0
     *     for a kill of a running server); for a waiter stop, how long after the wait began the
     *     worker is stopped; 0 otherwise
     */
    record Fault(Kind kind, long offsetMs, long durationMs, int worker, long leadMs) {
        @Override
        public String toString() {
            String more = kind == Kind.WAITER_STOP ? " worker " + worker + ", " + leadMs + " ms into a wait"
                    : worker >= 0 ? " worker " + worker : leadMs > 0 ? " hung " + leadMs + " ms first" : "";
            return String.format("%6.1f s %-12s %5d ms%s", offsetMs / 1000.0, kind, durationMs, more);
        }

        /**
         * The most time it takes from its offset: a stall is only armed there (the holder sleeps
         * some time later), and a waiter stop waits up to {@link #WAIT_ANNOUNCE_MS} for a hold and
         * again for a wait.
         */
        long spanMs() {
            return switch (kind) {
                case HOLDER_STALL -> durationMs + 1_000;
                case WAITER_STOP -> 2 * WAIT_ANNOUNCE_MS + leadMs + durationMs;
                case WORKER_STOP, CLIENT_KILL, SERVER_PAUSE, RESTART, SCRIPT_FLUSH -> durationMs;
            };
        }
    }

    /** How long a waiter stop waits for the other worker to say it holds, and for the target to name a waiter. */
    static final long WAIT_ANNOUNCE_MS = 1_000;

    /**
     * The schedule of a run of {@code durationMs} with {@code workers} workers, whose watchdog
     * lease is {@code watchdogMs} and fixed lease {@code leaseMs}.
     */
    static FaultSchedule generate(long seed, long durationMs, int workers, long watchdogMs, long leaseMs) {
        Random random = new Random(seed);
        List<Kind> firstRound = new ArrayList<>(List.of(Kind.values()));
        Collections.shuffle(firstRound, random);
        List<Fault> faults = new ArrayList<>();
        long at = WARM_UP_MS;
        long lastEnd = durationMs - QUIET_TAIL_MS;
        for (int i = 0; i < 10_000; i++) {
            Kind kind = i < firstRound.size() ? firstRound.get(i) : Kind.values()[random.nextInt(Kind.values().length)];
            long duration = switch (kind) {
                case HOLDER_STALL -> leaseMs + 300 + random.nextInt(700);
                case WORKER_STOP, WAITER_STOP -> watchdogMs + 300 + random.nextInt(700);
                case SERVER_PAUSE -> 500 + random.nextInt(1_101);
                case RESTART -> 200 + random.nextInt(601);
                case CLIENT_KILL, SCRIPT_FLUSH -> 0;
            };
            int worker = switch (kind) {
                case HOLDER_STALL, WORKER_STOP, WAITER_STOP -> random.nextInt(workers);
                case CLIENT_KILL, SERVER_PAUSE, RESTART, SCRIPT_FLUSH -> -1;
            };
            long lead = switch (kind) {
                case RESTART -> random.nextBoolean() ? 150 + random.nextInt(251) : 0;
                case WAITER_STOP -> 100 + random.nextInt(201);
                case HOLDER_STALL, WORKER_STOP, CLIENT_KILL, SERVER_PAUSE, SCRIPT_FLUSH -> 0;
            };
            if (kind == Kind.RESTART) {
                duration += lead; // hung, then down
            }
            long gap = 1_200 + random.nextInt(1_801);
            Fault fault = new Fault(kind, at, duration, worker, lead);
            if (at + fault.spanMs() > lastEnd) {
                break;
            }
            faults.add(fault);
            at += fault.spanMs() + gap;
        }
        return new FaultSchedule(seed, List.copyOf(faults));
    }
}
