/**
 * Acquiring on Redis: {@code LockAcquisition} is one acquisition's wait loop (attempt, park for a
 * wake-up or the holder's TTL, attempt again, until it holds, its wait runs out or it is
 * cancelled; a reply lost in a failure is recovered, never guessed), made of one class a concern:
 * {@code Subscriptions} (its channels and the park), {@code PlaceInLine} (its attempts and the
 * place in line they take), {@code LostReplies} (in-doubt recovery, by the owner's hold count where
 * its client counts it: {@code HeldBefore}), {@code GrantLatch} (grant
 * messages), {@code Settlement} (how it ends) and {@code Backoff}. {@code PendingAcquire} is any
 * acquisition in progress, and {@code Abandonments} gives back what an acquisition whose reply was
 * lost may have left (a claim, a counted hold, a place in line). Uses {@code renewal}, {@code protocol},
 * {@code wakeup}, {@code redis}, {@code base}.
 */
@NullMarked
package dev.padlock.internal.acquire;

import org.jspecify.annotations.NullMarked;
