package dev.padlock.internal.lock;

import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.internal.protocol.ReadWriteLockProtocol;

/** The {@link RReadWriteLock}: two {@link RedisLock}s over the two sides of one hash. */
public final class RedisReadWriteLock implements RReadWriteLock {
    private final String name;
    private final RLock readLock;
    private final RLock writeLock;

    public RedisReadWriteLock(String name, LockServices services) {
        this.name = name;
        this.readLock = new RedisLock(ReadWriteLockProtocol.read(name, services), services, false, "read");
        this.writeLock = new RedisLock(ReadWriteLockProtocol.write(name, services), services, false, "write");
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public RLock readLock() {
        return readLock;
    }

    @Override
    public RLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "RReadWriteLock[" + name + "]";
    }
}
