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
     * @param hungMs for a restart, how long the server is stopped (SIGSTOP) before it is killed;
     *     0 for a kill of a running server
     */
    record Fault(Kind kind, long offsetMs, long durationMs, int worker, long hungMs) {
        @Override
        public String toString() {
            return String.format("%6.1f s %-12s %5d ms%s", offsetMs / 1000.0, kind, durationMs,
                    worker >= 0 ? " worker " + worker : hungMs > 0 ? " hung " + hungMs + " ms first" : "");
        }
    }

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
                case WORKER_STOP -> watchdogMs + 300 + random.nextInt(700);
                case SERVER_PAUSE -> 500 + random.nextInt(1_101);
                case RESTART -> 200 + random.nextInt(601);
                case CLIENT_KILL, SCRIPT_FLUSH -> 0;
            };
            int worker = kind == Kind.HOLDER_STALL || kind == Kind.WORKER_STOP ? random.nextInt(workers) : -1;
            long hung = kind == Kind.RESTART && random.nextBoolean() ? 150 + random.nextInt(251) : 0;
            duration += hung;
            long gap = 1_200 + random.nextInt(1_801);
            // A stall is only armed at its offset; the holder sleeps some time later, so leave room.
            long occupies = kind == Kind.HOLDER_STALL ? duration + 1_000 : duration;
            if (at + occupies > lastEnd) {
                break;
            }
            faults.add(new Fault(kind, at, duration, worker, hung));
            at += occupies + gap;
        }
        return new FaultSchedule(seed, List.copyOf(faults));
    }
}
