/**
 * Each lock kind on Redis: its acquire, re-entry, release, renewal and grant calls
 * ({@code ExclusiveLockProtocol} for the plain, spin and fenced locks, {@code FairLockProtocol},
 * {@code ReadWriteLockProtocol}, {@code FencedLockProtocol}, and {@code AcknowledgedLockProtocol}
 * around any of them for replica acknowledgements): what every kind does ({@code LockProtocol}) and
 * what only some can do, each capability an interface a kind implements ({@code Claiming},
 * {@code Granting}, {@code LocalHandOff}); and the kind letter of the grant messages
 * their releasing scripts publish ({@code GrantKind}). Stateless over its {@code ProtocolContext}. Uses {@code script}, {@code wakeup},
 * {@code redis}.
 */
@NullMarked
package dev.padlock.internal.protocol;

import org.jspecify.annotations.NullMarked;
