package dev.padlock.sim;

/**
 * The mechanisms by which the engine has broken a promise, each with a detector that names it
 * (the finding's message starts with its name). Every one fails the run: none is counted and
 * carried. {@code -Dpadlock.sim.strict=none} (or a list of the names still to fail on) only
 * counts the others, to look past one finding for more while it is being fixed; CI never sets it.
 */
enum KnownDefect {
    /**
     * A client paused (GC, SIGSTOP) while a grant or reply for it was on the way reads it after the
     * lease it grants could have ended, and is told it holds: issue 27 ("Never told held on a stale
     * reply").
     */
    STALE_AFTER_PAUSE,
    /**
     * An acquisition whose reply was lost (timeout, dropped connection, refused while disconnected)
     * is confirmed by asking whether the owner's field exists ({@code HEXISTS}), which another hold
     * of the owner answers yes: the outer hold of a re-entry, the hold of the same owner's other
     * acquisition of the lock under way at the same time, or a hold an unconfirmed unlock left.
     * The owner is told it holds once more than Redis counts, or holds a lease nobody renews.
     */
    CONFIRMED_BY_ANOTHER_HOLD,
    /**
     * A hold on Redis that its owner does not know of (an unlock whose reply was lost, which ends
     * the engine's view of the owner's holds; or a grant or landing for a wait that had already
     * ended while its reply or message was lost) is counted under the owner's next acquisition of
     * the lock (a re-entry on Redis); its unlocks then leave that hold behind ("holds remain"), and
     * with a watchdog lease the watchdog renews it for as long as the client lives: the lock stays
     * held with nobody believing they hold it.
     */
    GHOST_HOLD_RENEWED,
    /**
     * A wait cancelled (or given up on) while its call is in flight: the engine undoes what that call
     * may have done (a give-back, {@code lock_abandon}, or a release) once its outcome is known or
     * lost, but the same owner's next acquisition, started in between, does not wait for it; the new
     * hold lands first and the undo removes it (a NOSCRIPT retry of the undo reorders them too).
     * Another owner then takes the lock while the first believes it holds.
     */
    GIVE_BACK_REMOVED_A_LATER_HOLD;

    boolean strict() {
        String strict = System.getProperty("padlock.sim.strict", "all");
        return strict.equals("all") || java.util.Arrays.asList(strict.split(",")).contains(name());
    }
}
