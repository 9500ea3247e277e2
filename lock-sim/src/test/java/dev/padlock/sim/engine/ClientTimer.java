package dev.padlock.sim.engine;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A client's Netty {@link Timer} on the {@link World}: its tasks are events of the client's actor,
 * held back while the client is paused. Like the wheel it stands for (5 ms ticks), a task may
 * run up to one tick late.
 */
public final class ClientTimer implements Timer {
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private final World world;
    private final World.Actor actor;
    private final Set<SimTimeout> pending = new HashSet<>();
    private boolean stopped;

    public ClientTimer(World world, World.Actor actor) {
        this.world = world;
        this.actor = actor;
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        if (stopped) {
            throw new RejectedExecutionException("timer stopped");
        }
        SimTimeout timeout = new SimTimeout(task);
        long late = world.random().nextLong(TICK_NANOS);
        timeout.event = world.after(Math.max(0, unit.toNanos(delay)) + late, TimeUnit.NANOSECONDS, actor,
                "timer " + task.getClass().getSimpleName(), () -> timeout.fire());
        pending.add(timeout);
        return timeout;
    }

    @Override
    public Set<Timeout> stop() {
        stopped = true;
        Set<Timeout> left = new HashSet<>(pending);
        pending.forEach(t -> t.event.cancel());
        pending.clear();
        return left;
    }

    private final class SimTimeout implements Timeout {
        private final TimerTask task;
        private World.Event event;
        private boolean expired;
        private boolean cancelled;

        SimTimeout(TimerTask task) {
            this.task = task;
        }

        void fire() {
            pending.remove(this);
            expired = true;
            try {
                task.run(this);
            } catch (Exception e) {
                throw new IllegalStateException("a timer task failed", e);
            }
        }

        @Override
        public Timer timer() {
            return ClientTimer.this;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return expired;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancel() {
            if (expired || cancelled) {
                return false;
            }
            cancelled = true;
            event.cancel();
            pending.remove(this);
            return true;
        }
    }
}
