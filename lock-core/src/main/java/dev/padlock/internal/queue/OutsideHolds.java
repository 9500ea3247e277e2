package dev.padlock.internal.queue;

import dev.padlock.internal.acquire.HeldBefore;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The holds owners of this client took of plain locks round their local views, by a multi lock's
 * one call ({@code MultiBatch}), counted per lock and owner, with that call's own in flight. Redis
 * counts them in the owner's field together with the holds the view counts, so the view needs
 * them: an owner with such holds re-enters rather than claims (a claim would reset the count), and
 * a give-back of a call in doubt compares Redis's count with the view's holds and these
 * ({@link LocalQueue#heldBesides}), not yet while a call that moves them is in flight.
 *
 * <p>Only the multi lock's calls add and drop them; what says the owner's field is gone (a release
 * that found it gone or emptied it, a lost lease) forgets them ({@link #forget}).
 */
final class OutsideHolds {
    private record Key(String localKey, long owner) {
    }

    /** Holds counted, and calls in flight that may move them. */
    private record Count(int holds, int calls) {
    }

    /** A multi lock's components, by their local keys in its order, and an owner. */
    private record Multi(List<String> localKeys, long owner) {
    }

    private final ConcurrentHashMap<Key, Count> counts = new ConcurrentHashMap<>();
    /** Holds of multi locks taken so, per component set and owner: any multi lock object of those components counts them. */
    private final ConcurrentHashMap<Multi, Integer> multis = new ConcurrentHashMap<>();

    /** How many holds {@code owner} has of the multi lock of {@code localKeys} taken by one call. */
    int multiHolds(List<String> localKeys, long owner) {
        return multis.isEmpty() ? 0 : multis.getOrDefault(new Multi(localKeys, owner), 0);
    }

    /** {@code holds} more (or fewer) holds of the multi lock of {@code localKeys} by {@code owner}. */
    void multiHeld(List<String> localKeys, long owner, int holds) {
        multis.compute(new Multi(localKeys, owner), (key, was) -> {
            int now = (was == null ? 0 : was) + holds;
            return now > 0 ? now : null;
        });
    }

    /** A call that may add or drop a hold of {@code owner} is sent. */
    void callStarted(String localKey, long owner) {
        counts.merge(new Key(localKey, owner), new Count(0, 1), (was, one) -> new Count(was.holds, was.calls + 1));
    }

    /** The call answered or failed: {@code holds} more (or fewer, when negative) holds counted now. */
    void callEnded(String localKey, long owner, int holds) {
        counts.computeIfPresent(new Key(localKey, owner), (key, was) -> orNone(
                new Count(Math.max(0, was.holds + holds), Math.max(0, was.calls - 1))));
    }

    /** Redis has no field of {@code owner} in the lock: none of these holds is left. */
    void forget(String localKey, long owner) {
        counts.computeIfPresent(new Key(localKey, owner), (key, was) -> orNone(new Count(0, was.calls)));
    }

    /** Whether {@code owner} has such holds of the lock, or a call that may add one is in flight. */
    boolean any(String localKey, long owner) {
        return !counts.isEmpty() && counts.containsKey(new Key(localKey, owner));
    }

    /** {@code owner}'s holds of the lock counted here; {@link HeldBefore#NOT_YET} while a call of it is in flight. */
    int count(String localKey, long owner) {
        Count count = counts.isEmpty() ? null : counts.get(new Key(localKey, owner));
        return count == null ? 0 : count.calls > 0 ? HeldBefore.NOT_YET : count.holds;
    }

    private static @Nullable Count orNone(Count count) {
        return count.holds == 0 && count.calls == 0 ? null : count;
    }
}
