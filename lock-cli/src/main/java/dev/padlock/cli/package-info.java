/**
 * The {@code padlock} command: who holds a lock, since when and who waits for it ({@code show},
 * {@code watch}), which locks are held ({@code ls}), which clients are alive ({@code clients}),
 * {@code force-unlock}, and the {@code demo}. It reads Redis directly (the lock hashes in
 * Redisson's format, Padlock's {@code padlock_since:{<name>}}, its lines of waiters, the client
 * registry's {@code padlock_client:<id>}, and lock-shedlock's string keys); it writes only
 * through {@code force-unlock}, with the same script as {@code RLock.forceUnlock()}. Not API:
 * the command line and its {@code --json} output are.
 */
package dev.padlock.cli;
