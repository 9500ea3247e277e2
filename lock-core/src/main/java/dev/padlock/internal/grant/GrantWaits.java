package dev.padlock.internal.grant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.padlock.internal.acquire.Abandonments;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.acquire.AcquireRequest;
import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.acquire.LockAcquisition;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.GrantKind;
import dev.padlock.internal.protocol.Granting;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.UnconfirmedUnlocks;
import io.netty.util.Timeout;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's acquisitions of kinds that grant to one owner's place on Redis (the fair lock's
 * line, the read lock's hall, the write lock's line), by kind, lock name and owner: it gives each
 * its place nonce, routes the grant messages to them ({@code f:}, {@code r:} or
 * {@code w:<threadId>:<nonce>:<name>}, see {@link GrantMessage}), and, for a kind whose grant does
 * not write the owner's "since" (the fair lock), notes it a moment later
 * ({@link Granting#noteGrantSince}). The grant itself writes the lease the owner asked for.
 *
 * <p><b>One wait with a place per owner.</b> A place on Redis is one owner's (the hall and the
 * line find it by the owner's field), and an attempt that finds the owner's field with its place
 * gone takes it as its grant. So a second waiting acquisition of the same owner and lock starts
 * only once the first has settled: then it re-enters if the first took the lock, or takes its own
 * place if not. Its wait budget runs from its call; one that ends, or is cancelled, before it
 * started answers {@code false} without asking Redis, since the same owner's earlier wait was
 * ahead of it all that time. A one-shot attempt takes no place; it goes at once, or after the
 * same owner's one-shot in flight has settled.
 *
 * <p>A grant message that finds no acquisition of its nonce is dropped: the acquisition it was for
 * has ended, and either took the lock (an attempt found the grant first) or left its place, and
 * the leave script kept a grant that reached it. The exception is a grant to the place of an
 * acquisition that ended without the lock and could not leave its place (its leave call failed;
 * a lost reply is sent again meanwhile): that grant holds the lock for nobody, for the owner's
 * whole lease, so it is given back at once (one release, which passes the lock on), unless the
 * leave sent again found it first ({@link LockAcquisition#giveBackGrant()}). Such places are
 * remembered for as long as their leave is sent again ({@link Abandonments#PLACE_RETRY_MILLIS}).
 * So is a second grant to the place of an acquisition that held by a grant: a grant removes its
 * place from the line, so an attempt of that wait sent before the first grant and run after it,
 * finding the field gone (a force unlock, a lease run out), took the place again at the tail.
 *
 * <p>An owner whose unlock could not be confirmed holds nothing as far as this client knows: its
 * next acquisition of the lock starts a new hold count ({@link UnconfirmedUnlocks}). Thread-safe.
 */
public final class GrantWaits {
    private static final Logger log = LoggerFactory.getLogger(GrantWaits.class);
    /** The running acquisition with a place, by kind, name and owner: where grant messages go. */
    private final ConcurrentHashMap<Key, LockAcquisition> waits = new ConcurrentHashMap<>();
    /**
     * By kind, name and owner: a future that completes once every waiting acquisition started so far
     * has settled (the next one's turn).
     */
    private final ConcurrentHashMap<Key, CompletableFuture<Void>> turns = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Key, Timeout> sinceNotes = new ConcurrentHashMap<>();
    /** Places left behind by acquisitions that ended without the lock, by nonce: see the class notes. */
    private final Cache<Long, LeftBehind> leftBehind = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofMillis(Abandonments.PLACE_RETRY_MILLIS)).maximumSize(10_000).build();
    /**
     * Places whose wait held by a grant (its caller told so or not), by nonce: a second grant to one
     * reached a place that an attempt of that wait, run after the first grant, took again (see
     * {@link #onGranted}).
     */
    private final Cache<Long, GrantTaken> grantTaken = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofMillis(Abandonments.PLACE_RETRY_MILLIS)).maximumSize(10_000).build();
    private final AtomicLong nonces = new AtomicLong();
    private final UnconfirmedUnlocks unconfirmedUnlocks = new UnconfirmedUnlocks();
    /** The acquisitions begun and not settled, by counted owner: what a release's give-back waits for. */
    private final ConcurrentHashMap<HeldCounts.Key, Set<LockAcquisition>> running = new ConcurrentHashMap<>();
    private final HeldCounts heldCounts = new HeldCounts();

    private record Key(char kind, String name, long owner) {
    }

    private record LeftBehind(Key key, LockAcquisition acquisition) {
    }

    /** What gives back a second grant to a place whose wait held by a grant: see {@link #grantTaken}. */
    private record GrantTaken(Key key, LockProtocol protocol) {
    }

    /**
     * Starts an acquisition of {@code protocol}'s lock with a place nonce of its own; see
     * {@link LockAcquisition#start}. {@code onHeld}, when not null, runs once it holds, before its
     * caller is told.
     */
    public PendingAcquire start(LockProtocol protocol, AcquireContext services, long leaseMillis, long owner,
            long waitNanos, boolean spin, @Nullable Runnable onHeld) {
        String localKey = protocol.localKey();
        LockAcquisition acquisition = LockAcquisition.create(services, protocol,
                AcquireRequest.of(owner, leaseMillis, waitNanos, spin, false)
                        .inLine(nonces.incrementAndGet(), false));
        HeldCounts.Key counted = new HeldCounts.Key(localKey, GrantKind.of(protocol), owner);
        // asked as it begins: the same owner's earlier wait, if any, has settled by then. Holds
        // whose fixed lease ran out may still be counted on Redis, their key kept alive by the
        // owner's hold on the other side of a read-write lock: not added to (the fair lock's hash
        // may hold the owner's plain holds, which this client's local view counts)
        acquisition.startsNewCountIf(() -> unconfirmedUnlocks.startsNewCount(localKey, owner)
                || GrantKind.of(protocol) != GrantKind.FAIR && heldCounts.ranOut(counted, services.clock().nanoTime()));
        // an attempt whose reply was lost landed only if Redis counts more than the owner's other holds
        acquisition.confirmsReentryBy(() -> heldCounts.heldBefore(counted, services.clock().nanoTime()));
        acquisition.beforeTold(() -> {
            unconfirmedUnlocks.held(localKey, owner);
            long now = services.clock().nanoTime();
            heldCounts.held(counted, now,
                    LeaseMillis.isWatchdog(leaseMillis) ? Long.MAX_VALUE : now + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            if (onHeld != null) {
                onHeld.run();
            }
        }, () -> heldCounts.untold(counted));
        Key key = new Key(GrantKind.of(protocol), protocol.name(), owner);
        // noted before the caller is told and before the wait leaves the running ones: no grant misses both
        acquisition.whenPlaceLeftBehind(() -> leftBehind.put(acquisition.placeNonce(), new LeftBehind(key, acquisition)));
        // a wait that held by a grant is noted whatever its caller heard (a hold that came after a
        // cancel is released again, but an attempt of it may still have taken the place again)
        Runnable noteGrantTaken = () -> {
            if (acquisition.granted()) {
                grantTaken.put(acquisition.placeNonce(), new GrantTaken(key, protocol));
            }
        };
        acquisition.result().whenComplete((acquired, failure) -> {
            noteGrantTaken.run();
            if (failure == null && acquired && acquisition.granted()) {
                scheduleSinceNote(protocol, services, key);
            }
        });
        acquisition.settled().whenComplete((ignored, failure) -> noteGrantTaken.run());
        if (spin) {
            begin(counted, acquisition);
            return acquisition;
        }
        CompletableFuture<Void> mine = acquisition.settled();
        if (waitNanos <= 0) {
            return oneShot(key, counted, acquisition, mine);
        }
        // the same owner waits for this lock already: start once every earlier wait has settled (not
        // only the last one: a wait that ended before its turn leaves the ones before it running)
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<Void>[] earlier = new CompletableFuture[1];
        CompletableFuture<Void> tail = turns.compute(key, (k, previous) -> {
            earlier[0] = previous == null || previous.isDone() ? null : previous;
            return earlier[0] == null ? mine : CompletableFuture.allOf(earlier[0], mine);
        });
        tail.whenComplete((ignored, failure) -> turns.remove(key, tail));
        if (earlier[0] == null) {
            run(key, counted, acquisition);
            return acquisition;
        }
        CompletableFuture<Void> turn = earlier[0];
        Timeout bound = waitNanos >= LockAcquisition.FOREVER / 4 ? null : services.timer().newTimeout(
                timeout -> acquisition.endBeforeBegin(), Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)),
                TimeUnit.MILLISECONDS);
        acquisition.result().whenComplete((acquired, failure) -> {
            if (acquisition.result().isCancelled()) {
                acquisition.endBeforeBegin();
            }
        });
        turn.whenComplete((ignored, failure) -> {
            if (bound != null) {
                bound.cancel();
            }
            run(key, counted, acquisition);
        });
        return acquisition;
    }

    /**
     * A one-shot attempt. Beside a wait of the same owner still in line it is not acquired and
     * sends nothing: that wait's next attempt would take the one-shot's hold for its own grant (two
     * acquisitions told, one hold on Redis). Otherwise (a re-entry included) it goes at once, or
     * once the owner's acquisition in flight has settled; a wait of the owner that starts while it
     * is in flight starts once it has settled.
     */
    private PendingAcquire oneShot(Key key, HeldCounts.Key counted, LockAcquisition acquisition,
            CompletableFuture<Void> mine) {
        LockAcquisition inLine = waits.get(key);
        if (inLine != null && !inLine.result().isDone()) {
            acquisition.endBeforeBegin();
            return acquisition;
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<Void>[] earlier = new CompletableFuture[1];
        CompletableFuture<Void> tail = turns.compute(key, (k, previous) -> {
            earlier[0] = previous == null || previous.isDone() ? null : previous;
            return earlier[0] == null ? mine : CompletableFuture.allOf(earlier[0], mine);
        });
        tail.whenComplete((ignored, failure) -> turns.remove(key, tail));
        if (earlier[0] == null) {
            begin(counted, acquisition);
            return acquisition;
        }
        // another one-shot of the owner is in flight: two at once could each claim the owner's
        // field (after an unconfirmed unlock) for its own hold, or leave a lost reply unnamed by
        // the hold count; this one goes once that one has settled, or ends unsent when cancelled
        acquisition.result().whenComplete((acquired, failure) -> {
            if (acquisition.result().isCancelled()) {
                acquisition.endBeforeBegin();
            }
        });
        earlier[0].whenComplete((ignored, failure) -> {
            if (acquisition.claimBegin()) {
                begin(counted, acquisition);
            }
        });
        return acquisition;
    }

    private void run(Key key, HeldCounts.Key counted, LockAcquisition acquisition) {
        if (!acquisition.claimBegin()) {
            return; // ended before its turn came
        }
        waits.put(key, acquisition);
        acquisition.settled().whenComplete((ignored, failure) -> waits.remove(key, acquisition));
        begin(counted, acquisition);
    }

    /** Begins {@code acquisition}, counted as the owner's acquisition in flight until it settles. */
    private void begin(HeldCounts.Key counted, LockAcquisition acquisition) {
        heldCounts.acquiring(counted);
        running.computeIfAbsent(counted, k -> ConcurrentHashMap.newKeySet()).add(acquisition);
        acquisition.settled().whenComplete((ignored, failure) -> {
            heldCounts.settled(counted);
            running.computeIfPresent(counted, (k, set) -> set.remove(acquisition) && set.isEmpty() ? null : set);
        });
        acquisition.begin();
    }

    /**
     * The holds {@code owner} has, for the give-back of a release whose reply was lost: unknown
     * while an acquisition of it that may have landed is in flight (one that waits for the give-back
     * has sent nothing); see {@link HeldCounts#heldBy}.
     */
    private int heldBy(HeldCounts.Key counted, long nowNanos) {
        int held = heldCounts.heldBy(counted, nowNanos);
        Set<LockAcquisition> acquisitions = held < 0 ? null : running.get(counted);
        if (acquisitions != null && acquisitions.stream().anyMatch(LockAcquisition::mayHaveLanded)) {
            return HeldBefore.UNKNOWN;
        }
        return held;
    }

    /** A grant message of a fair, a read or a write lock on one of this client's grant channels. */
    public void onGranted(GrantMessage message) {
        Key key = new Key(message.kind(), message.name(), message.owner());
        LockAcquisition acquisition = waits.get(key);
        if (acquisition != null && acquisition.grant(message.nonce())) {
            return;
        }
        LeftBehind place = leftBehind.asMap().remove(message.nonce());
        if (place != null && place.key().equals(key)) {
            log.debug("lock '{}': a grant to owner {} whose wait ended without leaving its place: giving it back",
                    message.name(), message.owner());
            place.acquisition().giveBackGrant();
            return;
        }
        GrantTaken taken = grantTaken.asMap().remove(message.nonce());
        if (taken != null && taken.key().equals(key)) {
            // a grant removes its place from the line: a second one means an attempt of that wait, sent
            // before the first grant and run after it, found the field gone and took the place again
            log.debug("lock '{}': a second grant to a place of owner {} whose wait held by the first: giving it back",
                    message.name(), message.owner());
            giveBack(taken.protocol(), message.owner());
            return;
        }
        log.debug("lock '{}': a grant ({}) to owner {} that no acquisition waits for any more", message.name(),
                message.kind(), message.owner());
    }

    /** Releases the one hold a grant nobody waits for gave {@code owner}; a failure leaves it to its lease. */
    private static void giveBack(LockProtocol protocol, long owner) {
        CompletableFuture<LockProtocol.Release> release;
        try {
            release = protocol.release(owner, 0);
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        release.whenComplete((released, failure) -> {
            if (failure != null) {
                log.warn("could not give back lock '{}' granted to {} after its wait had held; its lease will expire: {}",
                        protocol.name(), protocol.ownerField(owner), failure.toString());
            }
        });
    }

    /**
     * {@code owner}'s unlock of {@code protocol}'s lock could not be confirmed: its next acquisition of
     * it starts a new hold count, whatever that unlock left.
     */
    public void unlockUnconfirmed(LockProtocol protocol, long owner) {
        unconfirmedUnlocks.unconfirmed(protocol.localKey(), owner);
    }

    /**
     * The reply to {@code owner}'s release of {@code protocol}'s lock was lost. With other holds
     * counted, the owner holds on, and the hold released is given back if Redis still counts it
     * once it answers (the owner's next acquisition waits meanwhile); returns true. Otherwise its
     * next acquisition starts a new count, whatever the release left ({@link #unlockUnconfirmed}).
     */
    public boolean releaseLost(LockProtocol protocol, long owner, AcquireContext services) {
        HeldCounts.Key counted = new HeldCounts.Key(protocol.localKey(), GrantKind.of(protocol), owner);
        if (!heldCounts.releaseLost(counted)) {
            unlockUnconfirmed(protocol, owner);
            return false;
        }
        services.abandonments().giveBackIfLanded(protocol, owner, () -> heldBy(counted, services.clock().nanoTime()));
        return true;
    }

    /**
     * A release of {@code owner} said holds remain. Returns whether it holds on as this client
     * counts it (holds told, or an acquisition or release in flight); if not, what Redis keeps is
     * no hold anyone was told of (an acquisition given up in doubt that landed, given back by
     * itself, or a count left by a lost hold): it is not renewed, and the owner's next acquisition
     * starts a new count.
     */
    public boolean holdsOnAfterRelease(LockProtocol protocol, long owner, long nowNanos) {
        if (!heldCounts.none(new HeldCounts.Key(protocol.localKey(), GrantKind.of(protocol), owner), nowNanos)) {
            return true;
        }
        unlockUnconfirmed(protocol, owner);
        return false;
    }

    /** Whether {@code owner} has holds of {@code protocol}'s lock counted, as Redis confirmed them. */
    public boolean counts(LockProtocol protocol, long owner) {
        return heldCounts.holds(new HeldCounts.Key(protocol.localKey(), GrantKind.of(protocol), owner));
    }

    /** {@code owner} releases {@code protocol}'s lock: its since needs no note any more. */
    public void released(LockProtocol protocol, long owner) {
        heldCounts.releaseSent(new HeldCounts.Key(protocol.localKey(), GrantKind.of(protocol), owner));
        if (sinceNotes.isEmpty()) {
            return;
        }
        Timeout note = sinceNotes.remove(new Key(GrantKind.of(protocol), protocol.name(), owner));
        if (note != null) {
            note.cancel();
        }
    }

    /** The release {@link #released} announced was answered: holds remain ({@code stillHeld}), or not, or unknown. */
    public void releaseAnswered(LockProtocol protocol, long owner, boolean stillHeld) {
        heldCounts.releaseAnswered(new HeldCounts.Key(protocol.localKey(), GrantKind.of(protocol), owner), stillHeld);
    }

    /**
     * {@code owner}'s holds of the lock {@code localKey} are gone: it was told it lost its lease.
     * Its next acquisition starts a new count: told of a loss on silence, or by a renewal that
     * raced its unlock, it may still have a count on Redis that nobody will unlock.
     */
    public void leaseLost(String localKey, long owner) {
        heldCounts.lost(localKey, owner);
        unconfirmedUnlocks.unconfirmed(localKey, owner);
    }

    /** Every hold of the lock {@code localKey} told before {@code sentNanos} is gone: a force unlock sent then. */
    public void forceReleased(String localKey, long sentNanos) {
        heldCounts.forceReleased(localKey, sentNanos);
    }

    /**
     * A third of a look interval after a grant, the granted owner notes its since, for kinds whose
     * grant does not; unless it released the lock before. A note that fails or comes late changes nothing but what
     * {@code padlock show} says: it never touches the lease.
     */
    private void scheduleSinceNote(LockProtocol protocol, AcquireContext services, Key key) {
        Granting granting = protocol.granting();
        if (granting == null || key.kind() != GrantKind.FAIR) {
            return; // the read and write grants write the since themselves
        }
        long grantedAt = services.clock().nanoTime();
        Timeout note = services.timer().newTimeout(timeout -> {
            if (!sinceNotes.remove(key, timeout)) {
                return;
            }
            long elapsed = services.clock().millisSince(grantedAt);
            granting.noteGrantSince(key.owner(), elapsed).whenComplete((noted, failure) -> {
                if (failure != null) {
                    log.debug("could not note the since of lock '{}' granted to {}: {}", key.name(),
                            protocol.ownerField(key.owner()), failure.toString());
                }
            });
        }, Math.max(1, services.lookMillis() / 3), TimeUnit.MILLISECONDS);
        Timeout earlier = sinceNotes.put(key, note);
        if (earlier != null) {
            earlier.cancel();
        }
    }
}
