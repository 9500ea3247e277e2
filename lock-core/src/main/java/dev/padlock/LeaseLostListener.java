package dev.padlock;

/**
 * Told when the watchdog finds that a lock it was renewing is no longer held by this client:
 * its lease expired (for example during a long pause or an outage), it was deleted, or another
 * client took it. Only watchdog leases are watched; an unlock or a {@code forceUnlock} by this
 * client is not a loss.
 *
 * <p>Called once per loss, off the lock owner's thread, within one renewal period (a third of
 * the watchdog timeout) of the watchdog finding out. It must not block for long. Exceptions it
 * throws are logged and otherwise ignored.
 */
@FunctionalInterface
public interface LeaseLostListener {
    /**
     * Called once for each lost lease.
     *
     * @param lockName the lock's name
     * @param threadId the owner id (by default the thread id) that held it
     */
    void onLeaseLost(String lockName, long threadId);
}
