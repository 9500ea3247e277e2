/**
 * The client's local queue of each exclusive lock (plain, spin, fenced): which of its owners holds
 * it and who of them waits, so only one owner per client waits on Redis and a release can hand the
 * lock to the next owner in the same script call. A cache that routes: only a Redis reply grants.
 * {@code LocalQueues} is the entry point, {@code LocalQueue} one lock's view; the classes beside it
 * each do one part of that view's job (see its implementation notes). Uses {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.queue;

import org.jspecify.annotations.NullMarked;
