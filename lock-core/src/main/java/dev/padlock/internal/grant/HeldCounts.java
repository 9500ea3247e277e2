package dev.padlock.internal.grant;

import dev.padlock.internal.acquire.HeldBefore;
import dev.padlock.internal.protocol.GrantKind;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The holds each owner of this client was told it has of a lock of the kinds that grant (fair,
 * read, write), as Redis confirmed them: acquisitions, less the releases that said holds remain,
 * until a release frees the lock, a lease is lost or a fixed lease runs out. It only names a
 * re-entry whose reply was lost ({@link HeldBefore}): it grants nothing and tells nobody it holds.
 * Thread-safe.
 */
final class HeldCounts {
    /** One owner's holds of one lock through one kind. */
    record Key(String localKey, char kind, long owner) {
    }

    /**
     * @param holds holds told
     * @param releasing releases sent and not answered
     * @param acquiring acquisitions begun and not settled
     * @param endNanos when the last fixed lease told ends, on the engine's clock; {@link Long#MAX_VALUE}
     *     for a watchdog lease
     */
    private record Count(int holds, int releasing, int acquiring, long endNanos, long heldNanos) {
        static final Count NONE = new Count(0, 0, 0, Long.MIN_VALUE, Long.MIN_VALUE);

        boolean empty() {
            return holds == 0 && releasing <= 0 && acquiring <= 0;
        }

        /** Whether the last fixed lease told has run out by {@code nowNanos}; never for a watchdog lease. */
        boolean ranOut(long nowNanos) {
            return endNanos != Long.MAX_VALUE && nowNanos - endNanos >= 0;
        }
    }

    /** Past this many owners counted (at least), {@link #held} drops those whose last fixed lease has run out. */
    static final int SWEEP_ABOVE = 1_024;

    private final ConcurrentHashMap<Key, Count> counts = new ConcurrentHashMap<>();
    /** The size past which the next {@link #held} sweeps: doubles with what a sweep keeps, so sweeps stay rare. */
    private volatile int sweepAt = SWEEP_ABOVE;

    /** An acquisition of the owner begins. */
    void acquiring(Key key) {
        counts.compute(key, (k, c) -> {
            Count now = c == null ? Count.NONE : c;
            return new Count(now.holds, now.releasing, now.acquiring + 1, now.endNanos, now.heldNanos);
        });
    }

    /** An acquisition of the owner settled. */
    void settled(Key key) {
        counts.computeIfPresent(key, (k, c) ->
                orNull(new Count(c.holds, c.releasing, c.acquiring - 1, c.endNanos, c.heldNanos)));
    }

    /**
     * The owner was told it holds once more, at {@code nowNanos}, with a lease that ends no later than
     * {@code endNanos}. Owners whose holds ran out without an unlock (a fixed lease left to expire)
     * are dropped once many are counted, so the counts stay bounded.
     */
    void held(Key key, long nowNanos, long endNanos) {
        counts.compute(key, (k, c) -> {
            Count now = c == null ? Count.NONE : c;
            if (now.holds > 0 && now.ranOut(nowNanos)) {
                // the last fixed lease told ran out: those holds went with the key, and a new one
                // must not bring them back
                now = new Count(0, now.releasing, now.acquiring, Long.MIN_VALUE, now.heldNanos);
            }
            long end = endNanos;
            if (key.kind() == GrantKind.WRITE && now.holds > 0 && endNanos != Long.MAX_VALUE
                    && now.endNanos != Long.MAX_VALUE && now.endNanos - nowNanos > 0) {
                // a write re-entry adds its lease to what the TTL had left
                end = now.endNanos + (endNanos - nowNanos);
            }
            return new Count(now.holds + 1, now.releasing, now.acquiring, Math.max(now.endNanos, end), nowNanos);
        });
        if (counts.size() > sweepAt) {
            counts.values().removeIf(c -> c.releasing <= 0 && c.acquiring <= 0 && c.ranOut(nowNanos));
            sweepAt = Math.max(SWEEP_ABOVE, 2 * counts.size());
        }
    }

    /** A hold counted by {@link #held} was not told after all: its caller cancelled, and it is given back. */
    void untold(Key key) {
        counts.computeIfPresent(key, (k, c) ->
                orNull(new Count(Math.max(0, c.holds - 1), c.releasing, c.acquiring, c.endNanos, c.heldNanos)));
    }

    /** How many owners are counted; for tests. */
    int size() {
        return counts.size();
    }

    /** A release of the owner is sent. */
    void releaseSent(Key key) {
        counts.compute(key, (k, c) -> {
            Count now = c == null ? Count.NONE : c;
            return new Count(now.holds, now.releasing + 1, now.acquiring, now.endNanos, now.heldNanos);
        });
    }

    /** The release was answered: holds remain ({@code stillHeld}), or none does, or the reply was lost. */
    void releaseAnswered(Key key, boolean stillHeld) {
        counts.computeIfPresent(key, (k, c) -> orNull(new Count(stillHeld ? Math.max(0, c.holds - 1) : 0,
                c.releasing - 1, c.acquiring, c.endNanos, c.heldNanos)));
    }

    /**
     * The release's reply was lost: whether the owner has holds besides the one released, which
     * stay counted (the one in doubt is given back if Redis still counts it); else as a release
     * that freed the lock.
     */
    boolean releaseLost(Key key) {
        boolean[] others = new boolean[1];
        counts.computeIfPresent(key, (k, c) -> {
            others[0] = c.holds > 1;
            return orNull(new Count(others[0] ? c.holds - 1 : 0, c.releasing - 1, c.acquiring, c.endNanos,
                    c.heldNanos));
        });
        return others[0];
    }

    /**
     * Whether the owner has nothing counted at {@code nowNanos}: no hold whose lease is left, and no
     * acquisition or release in flight.
     */
    boolean none(Key key, long nowNanos) {
        Count c = counts.get(key);
        return c == null || (c.holds == 0 || c.ranOut(nowNanos)) && c.releasing <= 0 && c.acquiring <= 0;
    }

    /**
     * Whether the owner's holds told ran out by their fixed lease at {@code nowNanos}, with no
     * release of them in flight: whatever of them Redis still counts (its key kept alive by
     * another hold, say) is no hold anyone believes in.
     */
    boolean ranOut(Key key, long nowNanos) {
        Count c = counts.get(key);
        return c != null && c.holds > 0 && c.releasing <= 0 && c.ranOut(nowNanos);
    }

    /** Whether the owner has holds counted. */
    boolean holds(Key key) {
        Count c = counts.get(key);
        return c != null && c.holds > 0;
    }

    /** The owner's holds of {@code localKey} are gone (a lost lease): through every kind. */
    void lost(String localKey, long owner) {
        counts.replaceAll((k, c) -> k.localKey().equals(localKey) && k.owner() == owner
                ? new Count(0, c.releasing, c.acquiring, Long.MIN_VALUE, c.heldNanos) : c);
        counts.values().removeIf(Count::empty);
    }

    /**
     * Every hold of {@code localKey} told before {@code sentNanos} is gone: a force unlock sent then.
     * An owner told it holds since may have acquired after it ran, and keeps its count.
     */
    void forceReleased(String localKey, long sentNanos) {
        counts.replaceAll((k, c) -> k.localKey().equals(localKey) && c.heldNanos - sentNanos < 0
                ? new Count(0, c.releasing, c.acquiring, Long.MIN_VALUE, c.heldNanos) : c);
        counts.values().removeIf(Count::empty);
    }

    /**
     * The holds the owner has besides the one acquisition of it in doubt, at {@code nowNanos}:
     * {@link HeldBefore#NOT_YET} while a release of it is in flight; {@link HeldBefore#UNKNOWN}
     * while another acquisition of it is (which may be in doubt too, and wait for this one); 0 once
     * its last fixed lease has run out.
     */
    int heldBefore(Key key, long nowNanos) {
        Count c = counts.get(key);
        if (c == null) {
            return 0;
        }
        if (c.releasing > 0) {
            return HeldBefore.NOT_YET;
        }
        if (c.acquiring > 1) {
            return HeldBefore.UNKNOWN;
        }
        return c.ranOut(nowNanos) ? 0 : c.holds;
    }

    /**
     * The holds the owner has, for a release of it whose reply was lost: {@link HeldBefore#NOT_YET}
     * while another release of it is in flight; 0 once its last fixed lease has run out. Its
     * acquisitions in flight are not looked at: see {@code GrantWaits}.
     */
    int heldBy(Key key, long nowNanos) {
        Count c = counts.get(key);
        if (c == null) {
            return 0;
        }
        if (c.releasing > 0) {
            return HeldBefore.NOT_YET;
        }
        return c.ranOut(nowNanos) ? 0 : c.holds;
    }

    private static @Nullable Count orNull(Count count) {
        return count.empty() ? null : count;
    }
}
