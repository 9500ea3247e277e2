/**
 * Acquiring on Redis: {@code LockAcquisition} is one acquisition's wait loop (attempt, park for a
 * wake-up or the holder's TTL, attempt again, until it holds, its wait runs out or it is
 * cancelled; a reply lost in a failure is recovered, never guessed), {@code PendingAcquire} any
 * acquisition in progress, and {@code Abandonments} gives back claims whose reply was lost. Uses
 * {@code renewal}, {@code protocol}, {@code wakeup}, {@code redis}.
 */
package dev.padlock.internal.acquire;
