/**
 * Telling a {@link dev.padlock.LockObserver} what happened: acquisitions, holds, releases and
 * renewals, with their outcomes and durations. Uses {@code acquire}, {@code renewal} and below.
 */
@NullMarked
package dev.padlock.internal.observe;

import org.jspecify.annotations.NullMarked;
