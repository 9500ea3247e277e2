/**
 * Grants: the waits of kinds where a releasing script grants the lock to one owner's place in a
 * line on Redis (fair, read, write), one wait per kind, lock and owner ({@code GrantWaits}); the
 * wire message ({@code GrantMessage}) and the routing of every grant message of the client
 * ({@code GrantRouter}: to the waits, or to the local queues for a plain lock's). A grant message
 * is believed only when the publishing call counted its listener; otherwise the wait asks Redis.
 * {@code HeldCounts} counts each owner's holds as Redis confirmed them, which names an acquisition
 * whose reply was lost. The grant state of one acquisition, {@code GrantLatch}, is part of its
 * loop in {@code acquire}; the kind letters the scripts write are the protocol's
 * ({@code protocol.GrantKind}). Uses {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.grant;

import org.jspecify.annotations.NullMarked;
