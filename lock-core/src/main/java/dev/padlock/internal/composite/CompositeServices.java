package dev.padlock.internal.composite;

import static java.util.Objects.requireNonNull;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.observe.Observing;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * What the composite locks of one client take from it: its observer, its clock, its timer and
 * the turns of its owners' acquisitions. A client makes one and hands it to every composite it
 * makes ({@link MultiLock#of}, {@link RedLock#of}).
 *
 * @param observing the client's observer; null when none is set
 * @param clock the client's clock: every wait and round of its composites is timed on it
 * @param timer the client's timer
 * @param turns the client's turns: one owner's acquisitions of one composite, one after the other
 */
public record CompositeServices(@Nullable Observing observing, EngineClock clock, Timer timer, OwnerTurns turns) {

    /** Checks that the clock, the timer and the turns are given. */
    public CompositeServices {
        requireNonNull(clock, "clock");
        requireNonNull(timer, "timer");
        requireNonNull(turns, "turns");
    }

    /** A client's composite services, with fresh turns. */
    public static CompositeServices of(@Nullable Observing observing, EngineClock clock, Timer timer) {
        return new CompositeServices(observing, clock, timer, new OwnerTurns());
    }
}
