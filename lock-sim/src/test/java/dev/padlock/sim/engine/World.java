package dev.padlock.sim.engine;

import dev.padlock.internal.base.EngineClock;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Virtual time and the one queue of everything that happens in a simulation, run on one thread.
 * Every event belongs to an {@link Actor} (the server, a client); an event of a paused actor waits
 * until the pause ends, in the order it was made, as a stopped process's timers and input do.
 * Events at the same instant run in the order they were made: the seeded chance lies in the
 * latencies and the plan, so a seed repeats a run exactly.
 */
public final class World implements EngineClock {
    /** Virtual epoch milliseconds at time zero: what TIME and wall-clock reads start from. */
    public static final long EPOCH_MILLIS = 1_800_000_000_000L;

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final SplittableRandom random;
    private long now;
    private long made;
    private long steps;
    /** When Redis ran the command or script whose reply or message is being delivered now; -1 otherwise. */
    private long causeRanAt = -1;
    private java.util.function.Consumer<Event> beforeEach = event -> {
    };

    public World(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** One party whose events can be held back: the server (a stall) or a client (a pause). */
    public static final class Actor {
        private final String name;
        private long pausedUntil;

        public Actor(String name) {
            this.name = name;
        }

        /** Holds this actor's events back until {@code untilNanos}, or longer if already held. */
        public void pauseUntil(long untilNanos) {
            pausedUntil = Math.max(pausedUntil, untilNanos);
        }

        public boolean pausedAt(long nanos) {
            return pausedUntil > nanos;
        }

        public long pausedUntil() {
            return pausedUntil;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A scheduled action; cancel it to drop it. */
    public static final class Event implements Comparable<Event> {
        private long at;
        private final long order;
        private final Actor actor;
        private final String what;
        private final Runnable action;
        private boolean cancelled;

        private Event(long at, long order, Actor actor, String what, Runnable action) {
            this.at = at;
            this.order = order;
            this.actor = actor;
            this.what = what;
            this.action = action;
        }

        public void cancel() {
            cancelled = true;
        }

        public boolean isCancelled() {
            return cancelled;
        }

        public long at() {
            return at;
        }

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(order, o.order);
        }

        @Override
        public String toString() {
            return actor + ": " + what;
        }
    }

    /** Schedules {@code action} of {@code actor} at virtual time {@code atNanos} (now, if earlier). */
    public Event at(long atNanos, Actor actor, String what, Runnable action) {
        Event event = new Event(Math.max(atNanos, now), made++, actor, what, action);
        queue.add(event);
        return event;
    }

    /** Schedules {@code action} after {@code delay}. */
    public Event after(long delay, TimeUnit unit, Actor actor, String what, Runnable action) {
        return at(now + unit.toNanos(delay), actor, what, action);
    }

    /**
     * Runs the next event that is due, moving time to it; an event of a paused actor moves to the
     * end of the pause instead. Returns the event run, or null when nothing is left before
     * {@code limitNanos}.
     */
    public Event step(long limitNanos) {
        while (true) {
            Event next = queue.peek();
            if (next == null || next.at > limitNanos) {
                return null;
            }
            queue.poll();
            if (next.cancelled) {
                continue;
            }
            if (next.actor != null && next.actor.pausedAt(next.at)) {
                next.at = next.actor.pausedUntil;
                queue.add(next);
                continue;
            }
            now = next.at;
            steps++;
            beforeEach.accept(next);
            next.action.run();
            return next;
        }
    }

    /** Told of each event just before it runs: for traces. */
    public void beforeEach(java.util.function.Consumer<Event> listener) {
        this.beforeEach = listener;
    }

    /** Moves time to {@code nanos} when nothing is due before it. */
    public void advanceTo(long nanos) {
        Event next = queue.peek();
        if ((next == null || next.at >= nanos) && nanos > now) {
            now = nanos;
        }
    }

    /** Events run so far. */
    public long steps() {
        return steps;
    }

    public SplittableRandom random() {
        return random;
    }

    /** A draw with probability {@code p}. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public long currentTimeMillis() {
        return EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(now);
    }

    @Override
    public long jitter(long bound) {
        return random.nextLong(bound + 1);
    }

    /**
     * While the reply of a script or a pub/sub message is delivered: the virtual time at which Redis
     * ran the script that answered or published it; -1 during any other event (a timer, a planned
     * operation, the reply of a plain command).
     */
    public long causeRanAt() {
        return causeRanAt;
    }

    /** Runs {@code delivery} with {@link #causeRanAt()} set to {@code ranAt}. */
    public void deliver(long ranAt, Runnable delivery) {
        long before = causeRanAt;
        causeRanAt = ranAt;
        try {
            delivery.run();
        } finally {
            causeRanAt = before;
        }
    }

    /** Virtual milliseconds since time zero, for traces. */
    public double millis() {
        return now / 1e6;
    }
}
