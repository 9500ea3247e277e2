package dev.padlock.internal;

import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * One side of a read-write lock, in Redisson's {@code RReadWriteLock} format: the hash
 * {@code name} holds {@code mode} ({@code read} or {@code write}), a field per reader
 * {@code <clientId>:<threadId>} and the writer's {@code <clientId>:<threadId>:write}, each with
 * a hold count. Every read hold has its own lease key,
 * {@code {name}:<clientId>:<threadId>:rwlock_timeout:<n>}, and the hash lives as long as the
 * longest lease, so one reader's expiry leaves the others held. Unlocks that let someone in
 * publish {@code 1} on {@code redisson_rwlock:{name}}, which wakes every waiter.
 */
final class ReadWriteLockProtocol implements LockProtocol {
    /**
     * The reply of {@code rw_write_acquire} when the owner holds only the read lock: refused, so a
     * bounded {@code tryLock} answers {@code false} at once and {@code lock()} throws at once.
     */
    private static final long UPGRADE_REFUSED = -3;

    private final String name;
    private final boolean write;
    private final String clientId;
    private final ScriptRunner scripts;
    private final RedisBackend backend;
    private final String channel;
    private final String leaseBase;
    /** The holders' since, readers' and writer's entries alike. */
    private final String since;

    private ReadWriteLockProtocol(String name, boolean write, LockServices services) {
        this.name = name;
        this.write = write;
        this.clientId = services.clientId();
        this.scripts = services.scripts();
        this.backend = services.backend();
        this.channel = LockKeys.readWriteChannel(name);
        this.leaseBase = LockKeys.readLeaseBase(name);
        this.since = LockKeys.since(name);
    }

    static ReadWriteLockProtocol read(String name, LockServices services) {
        return new ReadWriteLockProtocol(name, false, services);
    }

    static ReadWriteLockProtocol write(String name, LockServices services) {
        return new ReadWriteLockProtocol(name, true, services);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String localKey() {
        return (write ? "\0write:" : "\0read:") + name;
    }

    @Override
    public String ownerField(long threadId) {
        return write ? writerField(threadId) : readerField(threadId);
    }

    private String readerField(long threadId) {
        return LockKeys.ownerField(clientId, threadId);
    }

    private String writerField(long threadId) {
        return readerField(threadId) + ":write";
    }

    private String leasePrefix(long threadId) {
        return LockKeys.readLeasePrefix(name, readerField(threadId));
    }

    @Override
    public String unlockChannel(long threadId) {
        return channel;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        String lease = Long.toString(leaseMillis);
        if (!write) {
            return scripts.<Long>run(LuaScript.RW_READ_ACQUIRE, ScriptOutputType.INTEGER,
                            new String[] {name, leasePrefix(threadId), since}, lease, readerField(threadId), writerField(threadId))
                    .thenApply(Attempt::fromTtl);
        }
        return scripts.<Long>run(LuaScript.RW_WRITE_ACQUIRE, ScriptOutputType.INTEGER,
                        new String[] {name, leaseBase, since}, lease, writerField(threadId), readerField(threadId))
                .thenApply(ttl -> ttl != null && ttl == UPGRADE_REFUSED
                        ? Attempt.refused("the write lock of '" + name + "' was asked for by " + readerField(threadId)
                                + ", which holds its read lock: a read lock is never upgraded (it would wait on "
                                + "itself); unlock the read lock first")
                        : Attempt.fromTtl(ttl));
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        CompletableFuture<Long> reply = write
                ? scripts.run(LuaScript.RW_WRITE_RELEASE, ScriptOutputType.INTEGER, new String[] {name, channel, leaseBase, since},
                        LockKeys.READ_UNLOCK_MESSAGE, Long.toString(rearmLeaseMillis), writerField(threadId),
                        backend.publishCommand())
                : scripts.run(LuaScript.RW_READ_RELEASE, ScriptOutputType.INTEGER,
                        new String[] {name, channel, leasePrefix(threadId), leaseBase, since},
                        LockKeys.READ_UNLOCK_MESSAGE, readerField(threadId), backend.publishCommand());
        return reply.thenApply(Release::fromScript);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return scripts.<Long>run(LuaScript.RW_FORCE_RELEASE, ScriptOutputType.INTEGER, new String[] {name, channel, since},
                        LockKeys.READ_UNLOCK_MESSAGE, mode(), backend.publishCommand())
                .thenApply(deleted -> deleted != null && deleted == 1L);
    }

    /**
     * The write side: whether the lock is in write mode. The read side: in read mode, or in
     * write mode while the writer also holds the read lock (Redisson's answer); one call either way.
     */
    @Override
    public CompletableFuture<Attempt> confirm(long threadId) {
        return ExclusiveLockProtocol.confirm(backend, name, ownerField(threadId));
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        if (write) {
            return backend.commands().hget(name, "mode").thenApply(mode()::equals).toCompletableFuture();
        }
        return scripts.<Long>run(LuaScript.RW_READ_LOCKED, ScriptOutputType.INTEGER, new String[] {name})
                .thenApply(locked -> locked != null && locked == 1L);
    }

    private String mode() {
        return write ? "write" : "read";
    }

    @Override
    public LuaScript renewScript() {
        return write ? LuaScript.LOCK_RENEW : LuaScript.RW_READ_RENEW;
    }

    @Override
    public String[] renewKeys(long threadId) {
        return write ? new String[] {name, since} : new String[] {name, leasePrefix(threadId), since};
    }
}
