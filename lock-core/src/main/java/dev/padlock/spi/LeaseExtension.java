package dev.padlock.spi;

import dev.padlock.LockClient;
import dev.padlock.internal.SpiAccess;
import java.util.concurrent.CompletableFuture;

/**
 * Extends a hold an owner already has, for integrations whose API renews a lock by its name
 * (Spring Integration's {@code renewLock}) rather than through a {@link dev.padlock.LockLease}.
 */
public final class LeaseExtension {

    private LeaseExtension() {
    }

    /**
     * Extends owner {@code threadId}'s lease of the lock {@code lockName} (one of
     * {@link LockClient#getLock}) to {@code leaseMillis} from now, in one script call that changes
     * nothing unless that owner holds it. It never takes or drops a hold and never shortens a
     * longer lease; a hold the watchdog renews stays renewed.
     *
     * @param client the client the owner belongs to
     * @param lockName the lock's name
     * @param threadId the owner's thread id, as in {@code <clientId>:<threadId>}
     * @param leaseMillis the lease; 0 or less for the client's watchdog timeout
     * @return completes with whether the owner held (and its lease was extended); exceptionally
     *     when Redis fails
     * @throws IllegalArgumentException when {@code client} was not made by {@link LockClient#connect}
     *     or {@link LockClient#create}, or {@code lockName} is empty
     * @throws IllegalStateException when {@code client} is closed
     */
    public static CompletableFuture<Boolean> extend(LockClient client, String lockName, long threadId,
            long leaseMillis) {
        return SpiAccess.extendLease(client, lockName, threadId, leaseMillis);
    }
}
