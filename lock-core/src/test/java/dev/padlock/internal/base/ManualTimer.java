package dev.padlock.internal.base;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Netty {@link Timer} and the engine's clock in one, whose time moves only when a test says so;
 * due tasks run on the test's thread, in order of their due time, while it advances.
 */
public final class ManualTimer implements Timer, EngineClock {
    /** The wall clock's reading at time zero. */
    public static final long EPOCH_MILLIS = 1_700_000_000_000L;

    private final List<Task> tasks = new ArrayList<>();
    private long nowNanos = TimeUnit.SECONDS.toNanos(1_000);
    private boolean stopped;

    @Override
    public synchronized long nanoTime() {
        return nowNanos;
    }

    @Override
    public synchronized long currentTimeMillis() {
        return EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(nowNanos);
    }

    /** Runs the tasks due now (a delay of zero), without moving time. */
    public void runDue() {
        advance(0);
    }

    @Override
    public synchronized Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        if (stopped) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        long delayNanos = unit.toNanos(delay); // saturates at Long.MAX_VALUE
        long due = delayNanos > Long.MAX_VALUE - nowNanos ? Long.MAX_VALUE : nowNanos + delayNanos;
        Task t = new Task(task, due);
        tasks.add(t);
        return t;
    }

    /** Moves time on by {@code millis}, running every task that falls due, in order. */
    public void advance(long millis) {
        long target;
        synchronized (this) {
            target = nowNanos + TimeUnit.MILLISECONDS.toNanos(millis);
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.stream().filter(t -> t.due <= target)
                        .min(Comparator.comparingLong(t -> t.due)).orElse(null);
                if (next == null) {
                    nowNanos = target;
                    return;
                }
                tasks.remove(next);
                nowNanos = Math.max(nowNanos, next.due);
            }
            try {
                next.task.run(next);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public synchronized int pending() {
        return tasks.size();
    }

    @Override
    public synchronized Set<Timeout> stop() {
        Set<Timeout> left = new HashSet<>(tasks);
        tasks.clear();
        stopped = true;
        return left;
    }

    private final class Task implements Timeout {
        final TimerTask task;
        final long due;
        private boolean cancelled;

        Task(TimerTask task, long due) {
            this.task = task;
            this.due = due;
        }

        @Override
        public Timer timer() {
            return ManualTimer.this;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            synchronized (ManualTimer.this) {
                return !tasks.contains(this) && !cancelled;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (ManualTimer.this) {
                return cancelled;
            }
        }

        @Override
        public boolean cancel() {
            synchronized (ManualTimer.this) {
                cancelled = tasks.remove(this);
                return cancelled;
            }
        }
    }
}
