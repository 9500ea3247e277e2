/**
 * The client's local queue of each exclusive lock (plain, spin, fenced): which of its owners holds
 * it and who of them waits, so only one owner per client waits on Redis and a release can hand the
 * lock to the next owner in the same script call. A cache that routes: only a Redis reply grants.
 * {@code LocalQueues} is the entry point, {@code LocalQueue} one lock's view and the one owner of
 * its monitor: every change of the view's state is a method of {@code LocalQueue}, and read there
 * with its implementation notes, the state machine is in one file. Beside it, its parts hold state
 * under that monitor and are not thread-safe ({@code Tickets}, {@code ConfirmedHolder},
 * {@code HandOffBudget}, {@code QueueWakeUps} with {@code ChannelWatches} and {@code SpinPoller},
 * {@code HolderLeaseWatch}); the classes that talk to Redis for it ({@code TicketRunner},
 * {@code LocalRelease}) take no lock and see only the transitions they need. When clients take turns
 * by grants is decided in {@code grant.GrantTurns}. {@code HandOffBudget} also bounds the
 * semaphores' local hand-offs ({@code semaphore.PermitHandOffs}). {@code OutsideHolds} counts the
 * holds a multi lock's one call takes round the views, which the views re-enter on and count in
 * their give-backs. Uses {@code grant},
 * {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.queue;

import org.jspecify.annotations.NullMarked;
