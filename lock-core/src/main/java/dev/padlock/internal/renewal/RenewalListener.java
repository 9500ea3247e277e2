package dev.padlock.internal.renewal;

import dev.padlock.LockObserver.RenewalOutcome;

/** Told how each of the watchdog's renewal calls came back, by how many owners. */
@FunctionalInterface
public interface RenewalListener {

    void renewed(int owners, RenewalOutcome outcome);
}
