package dev.padlock.spi;

/** {@link RedisAccess} over connections of its own, from {@link RedisAccess#open}; close it when done. */
public interface RedisConnection extends RedisAccess, AutoCloseable {

    /** Closes the connections; idempotent. */
    @Override
    void close();
}
