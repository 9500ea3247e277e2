package dev.padlock.sim;

/**
 * Broken promises the simulator finds in today's engine whose fix is another issue's work. Each
 * is counted and logged, not failed, so that the run goes on looking for others;
 * {@code -Dpadlock.sim.strict=NAME,...} (or {@code all}) fails on them again.
 */
enum KnownDefect {
    /**
     * A client paused (GC, SIGSTOP) while a grant or reply for it was on the way reads it after the
     * lease it grants could have ended, and is told it holds: issue 27 ("Never told held on a stale
     * reply").
     */
    STALE_AFTER_PAUSE,
    /**
     * A re-entry whose reply was lost (timeout, dropped connection) is confirmed by asking whether
     * the owner's field exists, which its outer hold answers yes: the owner is told it holds one
     * more time than Redis counts.
     */
    REENTRY_CONFIRMED_BY_OUTER_HOLD,
    /**
     * An unlock whose reply was lost ends the owner's renewal and its holds as the engine sees them,
     * but on Redis a hold may remain; the same owner's next acquisition of the lock counts on top of
     * it (a re-entry), its unlock leaves that hold behind ("holds remain"), and a watchdog lease
     * keeps renewing it: the lock stays held with nobody believing they hold it.
     */
    GHOST_HOLD_AFTER_UNCONFIRMED_UNLOCK,
    /**
     * A wait cancelled (or given up on) while its call is in flight: the engine undoes what that call
     * may have done (a give-back, {@code lock_abandon}, or a release) once its outcome is known or
     * lost, but the same owner's next acquisition, started in between, does not wait for it; the new
     * hold lands first and the undo removes it (a NOSCRIPT retry of the undo reorders them too).
     * Another owner then takes the lock while the first believes it holds.
     */
    GIVE_BACK_REMOVED_A_LATER_HOLD;

    boolean strict() {
        String strict = System.getProperty("padlock.sim.strict", "");
        return strict.equals("all") || java.util.Arrays.asList(strict.split(",")).contains(name());
    }
}
