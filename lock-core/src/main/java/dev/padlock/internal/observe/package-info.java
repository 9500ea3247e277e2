/**
 * Telling a {@link dev.padlock.LockObserver} what happened: acquisitions, holds, releases and
 * renewals, with their outcomes and durations. Uses {@code acquire}, {@code renewal} and below.
 */
package dev.padlock.internal.observe;
