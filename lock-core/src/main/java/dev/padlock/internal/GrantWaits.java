package dev.padlock.internal;

import io.netty.util.Timeout;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's acquisitions of kinds that grant to one owner's place on Redis (the fair lock's
 * line, the read lock's hall, the write lock's line), by kind, lock name and owner: it gives each
 * its place nonce, routes the grant messages to them ({@code f:}, {@code r:} or
 * {@code w:<threadId>:<nonce>:<name>}, see
 * {@link GrantMessage}), and has a granted owner set its own lease a third of the way into its
 * grant lease ({@link LockProtocol#settleGrant}), unless it released the lock before.
 *
 * <p>A grant message that finds no acquisition of its nonce is dropped: the acquisition it was for
 * has ended, and either took the lock (an attempt found the grant first) or left its place, and
 * the leave script kept a grant that reached it. Thread-safe.
 */
final class GrantWaits {
    private static final Logger log = LoggerFactory.getLogger(GrantWaits.class);

    private final ConcurrentHashMap<Key, LockAcquisition> waits = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Key, Timeout> extensions = new ConcurrentHashMap<>();
    private final AtomicLong nonces = new AtomicLong();

    private record Key(char kind, String name, long owner) {
    }

    /** Starts an acquisition of {@code protocol}'s lock with a place nonce of its own; see {@link LockAcquisition#start}. */
    PendingAcquire start(LockProtocol protocol, LockServices services, long leaseMillis, boolean watchdogLease,
            long owner, long waitNanos, boolean spin) {
        LockAcquisition acquisition = LockAcquisition.create(protocol, services.wakeUps(), services.watchdog(),
                leaseMillis, watchdogLease, owner, waitNanos, services.commandTimeoutMillis(), spin, false,
                services.abandonments(), nonces.incrementAndGet(), false);
        Key key = new Key(protocol.grantKind(), protocol.name(), owner);
        if (waitNanos > 0 && !spin) {
            waits.put(key, acquisition);
            acquisition.settled().whenComplete((ignored, failure) -> waits.remove(key, acquisition));
        }
        acquisition.result().whenComplete((acquired, failure) -> {
            if (failure == null && acquired && acquisition.granted()) {
                scheduleExtension(protocol, services, key, leaseMillis, watchdogLease);
            }
        });
        acquisition.begin();
        return acquisition;
    }

    /** A grant message of a fair, a read or a write lock on one of this client's grant channels. */
    void onGranted(GrantMessage message) {
        LockAcquisition acquisition = waits.get(new Key(message.kind(), message.name(), message.owner()));
        if (acquisition == null || !acquisition.grant(message.nonce())) {
            log.debug("lock '{}': a grant ({}) to owner {} that no acquisition waits for any more", message.name(),
                    message.kind(), message.owner());
        }
    }

    /** {@code owner} releases {@code protocol}'s lock: its grant needs no extension any more. */
    void released(LockProtocol protocol, long owner) {
        if (extensions.isEmpty()) {
            return;
        }
        Timeout extension = extensions.remove(new Key(protocol.grantKind(), protocol.name(), owner));
        if (extension != null) {
            extension.cancel();
        }
    }

    /**
     * A third of the way into the grant lease, the granted owner sets its own lease (the rest of a
     * fixed one), unless it released the lock before.
     */
    private void scheduleExtension(LockProtocol protocol, LockServices services, Key key, long leaseMillis,
            boolean watchdogLease) {
        long grantedAt = System.nanoTime();
        Timeout extension = services.timer().newTimeout(timeout -> {
            if (!extensions.remove(key, timeout)) {
                return;
            }
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt);
            long lease = watchdogLease ? services.watchdog().leaseMillis() : Math.max(1, leaseMillis - elapsed);
            protocol.settleGrant(key.owner(), lease, elapsed).whenComplete((held, failure) -> {
                if (failure != null) {
                    log.warn("could not set the lease of lock '{}' granted to {}: {}", key.name(),
                            protocol.ownerField(key.owner()), failure.toString());
                }
            });
        }, Math.max(1, protocol.grantMillis(leaseMillis) / 3), TimeUnit.MILLISECONDS);
        Timeout earlier = extensions.put(key, extension);
        if (earlier != null) {
            earlier.cancel();
        }
    }
}
