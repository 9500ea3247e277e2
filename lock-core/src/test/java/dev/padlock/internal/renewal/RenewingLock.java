package dev.padlock.internal.renewal;

import dev.padlock.internal.protocol.LockProtocol;
import java.util.concurrent.CompletableFuture;

/** A lock kind for watchdog tests: a name and owner fields {@code c:<owner>}; it renews its own hash, nothing else is called. */
final class RenewingLock implements LockProtocol {
    private final String name;

    RenewingLock(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String ownerField(long threadId) {
        return "c:" + threadId;
    }

    @Override
    public String unlockChannel(long threadId) {
        return "ch";
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        throw new UnsupportedOperationException();
    }
}
