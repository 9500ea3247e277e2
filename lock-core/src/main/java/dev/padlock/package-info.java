/**
 * Padlock: distributed locks on Redis.
 *
 * <p>Start with {@link dev.padlock.LockClient#connect(String)} or
 * {@link dev.padlock.LockClient#create(LockConfig)}, then take locks with
 * {@link dev.padlock.LockClient#getLock(String)} or another kind of the family (fair,
 * read-write, fenced, spin, multi, red). Locks use Redisson's on-Redis formats, so a Padlock lock
 * and a Redisson lock of the same name exclude each other.
 *
 * <p>Everything outside this package is internal and may change without notice.
 */
@NullMarked
package dev.padlock;

import org.jspecify.annotations.NullMarked;
