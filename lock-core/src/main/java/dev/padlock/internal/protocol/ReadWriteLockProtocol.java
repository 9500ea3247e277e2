package dev.padlock.internal.protocol;

import dev.padlock.internal.base.EngineClock;
import dev.padlock.internal.redis.RedisBackend;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.internal.script.ScriptRunner;
import dev.padlock.spi.LockKeys;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * One side of a read-write lock, in Redisson's {@code RReadWriteLock} format: the hash
 * {@code name} holds {@code mode} ({@code read} or {@code write}), a field per reader
 * {@code <clientId>:<threadId>} and the writer's {@code <clientId>:<threadId>:write}, each with
 * a hold count. Every read hold has its own lease key,
 * {@code {name}:<clientId>:<threadId>:rwlock_timeout:<n>} (hold 1's value is the reader's since,
 * by its client's clock), and the hash lives as long as the longest lease, so one reader's expiry
 * leaves the others held.
 *
 * <h2>Implementation notes: no herd, no starved writer, grants</h2>
 * An owner that will wait takes a place once its client listens on its grant channel
 * ({@code padlock_grant:{name}:<clientId>}): a writer in Padlock's line of writers
 * ({@code padlock_rw_queue:{name}}, places {@code <writer field>:<lease>:<nonce>} with
 * deadlines in {@code padlock_rw_deadlines:{name}} that each of its attempts moves on, so a writer
 * that is gone drops out by itself), parked on its own channel
 * {@code redisson_rwlock:{name}:<writer field>} at most {@link #maxParkMillis()}; a reader in the
 * readers' hall ({@code padlock_rw_readers:{name}}, a hash of reader field to
 * {@code <lease>:<nonce>}), parked on the shared channel {@code redisson_rwlock:{name}}, as
 * Redisson's waiters do.
 * <ul>
 *   <li>A writer's failed attempt also closes the gate ({@code padlock_rw_gate:{name}}, alive as
 *       long as a place in line), which goes with the last writer in line. A new reader (not a
 *       re-entry, not a downgrade) yields while the gate is closed, so a stream of readers cannot
 *       starve writers.</li>
 *   <li>The last write release grants the read lock to every reader in the hall whose client hears
 *       it, in the same script call ({@code r:<threadId>:<nonce>:<name>} on the client's grant
 *       channel). With writers in line, the readers' turn begins ({@code padlock_rw_turn:{name}},
 *       {@value #TURN_MILLIS} ms), in which new readers join them despite the gate; the next writer
 *       waits for its end. So write phases and read phases alternate.</li>
 *   <li>The release that frees the lock otherwise grants it to the first live place in line whose
 *       client hears it ({@code w:<threadId>:<nonce>:<name>}), or, with nobody in line, publishes
 *       {@code 1} on the shared channel (readers and Redisson's waiters).</li>
 *   <li>A grantee holds once, with the lease its place asked for, set by the grant itself; a
 *       granted writer's since is written by the grant too, a granted reader's is the value of its
 *       lease key.</li>
 * </ul>
 * Every park is bounded by what it waits for: a refused reader by a line deadline or the writer's
 * lease, a writer by {@link #maxParkMillis()}, so no state (a lost message, an expiry, a Redisson
 * unlock, which only publishes on the shared channel) leaves anyone waiting longer. An owner that
 * gives up leaves the line or the hall ({@link #leaveQueue(long, long, long)}), keeping a grant
 * that reached it meanwhile. Where a grant message cannot be trusted (see
 * {@link FairLockProtocol}), it only wakes the owner, whose next attempt finds the grant.
 */
public final class ReadWriteLockProtocol implements LockProtocol, Granting {
    /**
     * The reply of {@code rw_write_acquire} when the owner holds only the read lock: refused, so a
     * bounded {@code tryLock} answers {@code false} at once and {@code lock()} throws at once.
     */
    private static final long UPGRADE_REFUSED = -3;
    /** The readers' turn after a write release that granted waiting readers while writers wait, in ms. */
    static final long TURN_MILLIS = 50;
    /** The longest park of a waiting writer: it also moves its deadline in line on. */
    static final long MAX_WRITER_PARK_MILLIS = 500;

    private final String name;
    private final boolean write;
    private final String clientId;
    private final OwnerFields fields;
    private final ScriptRunner scripts;
    private final RedisBackend backend;
    private final String channel;
    private final String leaseBase;
    /** The writer's since (a reader's is the value of its first hold's lease key). */
    private final String since;
    private final String line;
    private final String deadlines;
    private final String gate;
    private final String hall;
    private final String turn;
    /** How long a writer's place in line lasts after its last attempt, and the readers' hall after their last attempt, in ms. */
    private final long lineMillis;
    /** "1" when PUBLISH's count says who heard a grant, else "0": see {@code rw_write_release}. */
    private final String countsListeners;
    private final boolean grantMessageConfirms;
    private final EngineClock clock;

    private ReadWriteLockProtocol(String name, boolean write, ProtocolContext services) {
        this.name = name;
        this.write = write;
        this.clientId = services.clientId();
        this.fields = services.ownerFields();
        this.scripts = services.scripts();
        this.backend = services.backend();
        this.channel = LockKeys.readWriteChannel(name);
        this.leaseBase = LockKeys.readLeaseBase(name);
        this.since = LockKeys.since(name);
        this.line = LockKeys.readWriteLine(name);
        this.deadlines = LockKeys.readWriteDeadlines(name);
        this.gate = LockKeys.readWriteGate(name);
        this.hall = LockKeys.readWriteReaders(name);
        this.turn = LockKeys.readWriteTurn(name);
        this.lineMillis = services.lookMillis();
        this.countsListeners = services.publishCountsListeners() ? "1" : "0";
        this.grantMessageConfirms = services.grantMessagesConfirm();
        this.clock = services.clock();
    }

    public static ReadWriteLockProtocol read(String name, ProtocolContext services) {
        return new ReadWriteLockProtocol(name, false, services);
    }

    public static ReadWriteLockProtocol write(String name, ProtocolContext services) {
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
        return fields.of(threadId);
    }

    private String writerField(long threadId) {
        return readerField(threadId) + ":write";
    }

    private String leasePrefix(long threadId) {
        return LockKeys.readLeasePrefix(name, readerField(threadId));
    }

    /** A writer's own channel, where only the release that lets it in publishes; readers share the lock's. */
    @Override
    public String unlockChannel(long threadId) {
        return write ? LockKeys.readWriteWriterChannel(name, writerField(threadId)) : channel;
    }

    /**
     * A writer attempts at least this often, which keeps its place in line alive; a refused reader
     * is told how long to wait by Redis (the first writer's deadline, or the writer's lease).
     */
    @Override
    public long maxParkMillis() {
        return write ? Math.min(lineMillis / 3, MAX_WRITER_PARK_MILLIS) : lineMillis;
    }

    /**
     * Takes the owner's place out of the hall (a reader) or the line (a writer), or finds the grant
     * that reached it meanwhile: then it holds once, with {@code leaseMillis}.
     */
    @Override
    public CompletableFuture<Boolean> leaveQueue(long threadId, long leaseMillis, long placeNonce) {
        CompletableFuture<Long> left = write
                ? scripts.run(LuaScript.RW_WRITE_LEAVE, ScriptOutputType.INTEGER,
                        new String[] {name, channel, line, deadlines, gate, since}, LockKeys.READ_UNLOCK_MESSAGE,
                        writerPlace(threadId, leaseMillis, placeNonce), backend.publishCommand(), writerField(threadId),
                        Long.toString(leaseMillis))
                : scripts.run(LuaScript.RW_READ_LEAVE, ScriptOutputType.INTEGER,
                        new String[] {name, hall, leasePrefix(threadId)}, readerField(threadId),
                        readerPlace(leaseMillis, placeNonce), Long.toString(leaseMillis));
        return left.thenApply(kept -> kept != null && kept == 2L);
    }

    /** Both sides grant: see the class notes. */
    @Override
    public boolean grantMessageConfirms() {
        return grantMessageConfirms;
    }

    @Override
    public String grantChannel() {
        return LockKeys.grantChannelPrefix(name) + clientId;
    }

    @Override
    public char grantKind() {
        return write ? GrantKind.WRITE : GrantKind.READ;
    }

    private String readerPlace(long leaseMillis, long nonce) {
        return leaseMillis + ":" + nonce;
    }

    private String writerPlace(long threadId, long leaseMillis, long nonce) {
        return writerField(threadId) + ":" + leaseMillis + ":" + nonce;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait) {
        return tryAcquire(leaseMillis, threadId, willWait, 0, false, false);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(long leaseMillis, long threadId, boolean willWait, long placeNonce,
            boolean inLine, boolean newCount) {
        String claim = newCount ? "1" : "0";
        String lease = Long.toString(leaseMillis);
        boolean place = willWait && placeNonce != 0;
        String placeMode = !place ? "0" : inLine ? "2" : "1";
        if (!write) {
            return scripts.<Long>run(LuaScript.RW_READ_ACQUIRE, ScriptOutputType.INTEGER,
                            new String[] {name, leasePrefix(threadId), gate, hall, turn}, lease,
                            readerField(threadId), writerField(threadId), Long.toString(lineMillis),
                            Long.toString(clock.currentTimeMillis()), placeMode,
                            place ? readerPlace(leaseMillis, placeNonce) : "", claim)
                    .thenApply(Attempt::fromTtl);
        }
        return scripts.<Long>run(LuaScript.RW_WRITE_ACQUIRE, ScriptOutputType.INTEGER,
                        new String[] {name, leaseBase, since, line, deadlines, gate, channel, turn}, lease,
                        writerField(threadId), readerField(threadId), placeMode, Long.toString(lineMillis),
                        backend.publishCommand(), place ? writerPlace(threadId, leaseMillis, placeNonce) : "", claim)
                .thenApply(ttl -> ttl != null && ttl == UPGRADE_REFUSED
                        ? Attempt.refused("the write lock of '" + name + "' was asked for by " + readerField(threadId)
                                + ", which holds its read lock: a read lock is never upgraded (it would wait on "
                                + "itself); unlock the read lock first")
                        : Attempt.fromTtl(ttl));
    }

    @Override
    public CompletableFuture<Release> release(long threadId, long rearmLeaseMillis) {
        LuaScript script = write ? LuaScript.RW_WRITE_RELEASE : LuaScript.RW_READ_RELEASE;
        CompletableFuture<Long> reply = write
                ? scripts.run(script, ScriptOutputType.INTEGER,
                        new String[] {name, channel, since, line, deadlines, gate, hall, leaseBase, turn},
                        LockKeys.READ_UNLOCK_MESSAGE, Long.toString(rearmLeaseMillis), writerField(threadId),
                        backend.publishCommand(), Long.toString(clock.currentTimeMillis()), countsListeners,
                        Long.toString(TURN_MILLIS))
                : scripts.run(script, ScriptOutputType.INTEGER,
                        new String[] {name, channel, leasePrefix(threadId), line, deadlines, gate, turn, since},
                        LockKeys.READ_UNLOCK_MESSAGE, readerField(threadId), backend.publishCommand(), countsListeners);
        return reply.thenApply(released -> RefusedMessages.release(backend, script, name, released));
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return scripts.<Long>run(LuaScript.RW_FORCE_RELEASE, ScriptOutputType.INTEGER, new String[] {name, channel, since, line, hall, turn},
                        LockKeys.READ_UNLOCK_MESSAGE, mode(), backend.publishCommand())
                .thenApply(reply -> RefusedMessages.removed(backend, LuaScript.RW_FORCE_RELEASE, name, reply));
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
    public CompletableFuture<Attempt> confirmReentry(long threadId, int heldBefore) {
        return ExclusiveLockProtocol.confirmReentry(backend, name, ownerField(threadId), heldBefore);
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
