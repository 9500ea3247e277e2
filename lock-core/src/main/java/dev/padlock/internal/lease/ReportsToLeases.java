package dev.padlock.internal.lease;

import dev.padlock.internal.base.EngineClock;
import java.util.List;

/**
 * A lock whose clients report to lease clocks: a lease of it is opened on each of them, and timed
 * on their clock (the engine's, which a simulation drives).
 */
public interface ReportsToLeases {

    /** The lease registries of the clients this lock's holds go through: one, or a composite's several. */
    List<LeaseClocks> leaseClocks();

    /** The clock the engine reads send times from. */
    EngineClock engineClock();
}
