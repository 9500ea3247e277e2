/**
 * Waking waiters: the pub/sub subscriptions of the lock channels (one per channel, shared by every
 * waiter of this client, dropped when idle) and the waiters parked on them, woken by an unlock or
 * a grant message, or by their own deadline. Uses {@code redis}.
 */
@NullMarked
package dev.padlock.internal.wakeup;

import org.jspecify.annotations.NullMarked;
