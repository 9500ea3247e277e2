package dev.padlock.internal.observe;

import dev.padlock.LockObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link LockObserver} that records what it is told, in order, and hands out contexts named for
 * what they belong to: {@code acquisition-1}, ... from {@link #acquisitionStarted}, and
 * {@code hold-of-acquisition-1}, ... from {@link #acquisitionEnded}.
 */
public final class RecordingObserver implements LockObserver {

    public record Started(String lockName, Kind kind, long threadId) {
    }

    public record Ended(AcquisitionEnd end, Object context) {
    }

    public record Released(HoldEnd end, Object holdContext) {
    }

    public record Lost(String lockName, Kind kind, long threadId, Object holdContext) {
    }

    public record Renewed(int owners, RenewalOutcome outcome) {
    }

    public final List<Started> started = new ArrayList<>();
    public final List<Ended> ended = new ArrayList<>();
    public final List<Released> released = new ArrayList<>();
    public final List<Lost> lost = new ArrayList<>();
    public final List<Renewed> renewed = new ArrayList<>();
    private int acquisitions;

    @Override
    public synchronized Object acquisitionStarted(String lockName, Kind kind, long threadId) {
        started.add(new Started(lockName, kind, threadId));
        return "acquisition-" + ++acquisitions;
    }

    @Override
    public synchronized Object acquisitionEnded(AcquisitionEnd end, Object context) {
        ended.add(new Ended(end, context));
        return "hold-of-" + context;
    }

    @Override
    public synchronized void released(HoldEnd end, Object holdContext) {
        released.add(new Released(end, holdContext));
    }

    @Override
    public synchronized void leasesRenewed(int owners, RenewalOutcome outcome) {
        renewed.add(new Renewed(owners, outcome));
    }

    @Override
    public synchronized void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
        lost.add(new Lost(lockName, kind, threadId, holdContext));
    }

    /** The only acquisition end told so far. */
    public synchronized AcquisitionEnd onlyEnd() {
        if (ended.size() != 1) {
            throw new AssertionError("expected one acquisition end, got " + ended);
        }
        return ended.get(0).end();
    }

    /** The only hold end told so far. */
    public synchronized HoldEnd onlyRelease() {
        if (released.size() != 1) {
            throw new AssertionError("expected one hold end, got " + released);
        }
        return released.get(0).end();
    }
}
