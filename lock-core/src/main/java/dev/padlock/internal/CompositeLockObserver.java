package dev.padlock.internal;

import static java.util.Objects.requireNonNull;

import dev.padlock.LockObserver;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LockObserver#composite}: tells each observer in turn, keeping each one's contexts in an
 * array at its index; a failing observer is logged and the others are still told.
 */
public final class CompositeLockObserver implements LockObserver {
    private static final Logger log = LoggerFactory.getLogger(CompositeLockObserver.class);

    private final LockObserver[] observers;

    private CompositeLockObserver(LockObserver[] observers) {
        this.observers = observers;
    }

    /** One observer for all of {@code observers}: itself when there is exactly one. */
    public static LockObserver of(LockObserver... observers) {
        requireNonNull(observers, "observers");
        List<LockObserver> list = List.of(observers); // rejects null elements
        return list.size() == 1 ? list.get(0) : new CompositeLockObserver(list.toArray(LockObserver[]::new));
    }

    @Override
    public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
        Object[] contexts = new Object[observers.length];
        for (int i = 0; i < observers.length; i++) {
            try {
                contexts[i] = observers[i].acquisitionStarted(lockName, kind, threadId);
            } catch (RuntimeException e) {
                failed(i, "acquisitionStarted", e);
            }
        }
        return contexts;
    }

    @Override
    public Object acquisitionEnded(AcquisitionEnd end, @Nullable Object context) {
        Object[] started = context instanceof Object[] array ? array : new Object[observers.length];
        Object[] holds = new Object[observers.length];
        for (int i = 0; i < observers.length; i++) {
            try {
                holds[i] = observers[i].acquisitionEnded(end, started[i]);
            } catch (RuntimeException e) {
                failed(i, "acquisitionEnded", e);
            }
        }
        return holds;
    }

    @Override
    public void released(HoldEnd end, @Nullable Object holdContext) {
        Object[] holds = holdContext instanceof Object[] array ? array : new Object[observers.length];
        for (int i = 0; i < observers.length; i++) {
            try {
                observers[i].released(end, holds[i]);
            } catch (RuntimeException e) {
                failed(i, "released", e);
            }
        }
    }

    @Override
    public void leasesRenewed(int owners, RenewalOutcome outcome) {
        for (int i = 0; i < observers.length; i++) {
            try {
                observers[i].leasesRenewed(owners, outcome);
            } catch (RuntimeException e) {
                failed(i, "leasesRenewed", e);
            }
        }
    }

    @Override
    public void leaseLost(String lockName, Kind kind, long threadId, @Nullable Object holdContext) {
        Object[] holds = holdContext instanceof Object[] array ? array : new Object[observers.length];
        for (int i = 0; i < observers.length; i++) {
            try {
                observers[i].leaseLost(lockName, kind, threadId, holds[i]);
            } catch (RuntimeException e) {
                failed(i, "leaseLost", e);
            }
        }
    }

    private void failed(int index, String method, RuntimeException e) {
        log.warn("lock observer {} failed in {}; the lock is not affected", observers[index], method, e);
    }

    @Override
    public String toString() {
        return "CompositeLockObserver" + List.of(observers);
    }
}
