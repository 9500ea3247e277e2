/**
 * Grants: the waits of kinds where a releasing script grants the lock to one owner's place in a
 * line on Redis (fair, read, write), one wait per kind, lock and owner, and the routing of grant
 * messages to them. A grant message is believed only when the publishing call counted its
 * listener; otherwise the wait asks Redis. {@code HeldCounts} counts each owner's holds as Redis
 * confirmed them, which names an acquisition whose reply was lost. Uses {@code acquire} and below.
 */
@NullMarked
package dev.padlock.internal.grant;

import org.jspecify.annotations.NullMarked;
