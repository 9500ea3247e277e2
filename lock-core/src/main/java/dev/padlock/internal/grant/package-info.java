/**
 * Grants: a releasing script grants the lock to one owner's place in a line on Redis and publishes
 * on the owner's client's grant channel. A grant message is believed only when the publishing call
 * counted its listener; otherwise the waiter asks Redis. Where each piece lives:
 * <ul>
 *   <li>the wire message: {@code GrantMessage}, here; the kind letters the scripts write are the
 *       protocol's ({@code protocol.GrantKind});</li>
 *   <li>the routing of every grant message of the client: {@code GrantRouter}, here (to the waits,
 *       or to the local queues for a plain lock's);</li>
 *   <li>the waits of the kinds that grant to a place (fair, read, write), one per kind, lock and
 *       owner: {@code GrantWaits}, here;</li>
 *   <li>the turns between clients of a plain lock's local queue (when a release puts this client
 *       back in line, a grant nobody here waits for): {@code GrantTurns}, here; the queue that
 *       takes them is {@code queue.LocalQueue} ({@code onGranted}, {@code release});</li>
 *   <li>the grant state of one acquisition (the latch its loop reads): {@code acquire.GrantLatch},
 *       part of that loop, below this package;</li>
 *   <li>each owner's holds as Redis confirmed them, which name an acquisition whose reply was
 *       lost: {@code HeldCounts}, here.</li>
 * </ul>
 * Uses {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.grant;

import org.jspecify.annotations.NullMarked;
