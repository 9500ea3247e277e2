package dev.padlock.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson (the version in the benchmarks pom) with its default configuration for one server
 * ({@code useSingleServer}) or a Cluster ({@code useClusterServers} with the seeds): a pool of
 * command connections, a separate pool of pub/sub connections (per master on a Cluster), a 30 s
 * watchdog.
 */
final class RedissonLibrary implements LockLibrary {

    @Override
    public String name() {
        return "Redisson";
    }

    @Override
    public Client connect(RedisTarget target) {
        Config config = new Config();
        if (target.topology() == Topology.SINGLE) {
            config.useSingleServer().setAddress(target.uri());
        } else {
            config.useClusterServers().addNodeAddress(target.uris().toArray(String[]::new));
        }
        RedissonClient client = Redisson.create(config);
        return new Client() {
            @Override
            public BenchLock lock(LockKind kind, List<String> names) {
                if (names.size() != kind.locks()) {
                    throw new IllegalArgumentException(kind + " needs " + kind.locks() + " names, got " + names);
                }
                String name = names.get(0);
                switch (kind) {
                    case LOCK:
                        return new RedissonLock(client.getLock(name));
                    case FAIR:
                        return new RedissonLock(client.getFairLock(name));
                    case READ:
                        return new RedissonLock(client.getReadWriteLock(name).readLock());
                    case WRITE:
                        return new RedissonLock(client.getReadWriteLock(name).writeLock());
                    case FENCED:
                        return new RedissonFencedLock(client.getFencedLock(name));
                    case SPIN:
                        return new RedissonLock(client.getSpinLock(name));
                    case MULTI:
                        return new RedissonLock(client.getMultiLock(components(names)));
                    case RED:
                        return new RedissonLock(redLock(components(names)));
                    default:
                        throw new IllegalArgumentException("Unknown kind " + kind);
                }
            }

            @Override
            public BenchLock multiLock(List<String> names) {
                return new RedissonLock(client.getMultiLock(components(names)));
            }

            @Override
            public BenchSemaphore semaphore(String name) {
                RSemaphore semaphore = client.getSemaphore(name);
                return new BenchSemaphore() {
                    @Override
                    public boolean trySetPermits(int permits) {
                        return semaphore.trySetPermits(permits);
                    }

                    @Override
                    public void acquire() throws InterruptedException {
                        semaphore.acquire();
                    }

                    @Override
                    public void release() {
                        semaphore.release();
                    }
                };
            }

            private RLock[] components(List<String> names) {
                return names.stream().map(client::getLock).toArray(RLock[]::new);
            }

            /** Redisson deprecates its {@code RedissonRedLock}, but it is the equivalent measured. */
            @SuppressWarnings("deprecation")
            private RLock redLock(RLock[] locks) {
                return client.getRedLock(locks);
            }

            @Override
            public void close() {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        };
    }

    private static class RedissonLock implements BenchLock {

        final RLock lock;

        RedissonLock(RLock lock) {
            this.lock = lock;
        }

        @Override
        public void lock(long leaseMillis) {
            lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void lockWithWatchdog() {
            lock.lock();
        }

        @Override
        public boolean tryLock() {
            return lock.tryLock();
        }

        @Override
        public boolean tryLock(long waitMillis, long leaseMillis) throws InterruptedException {
            return lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void unlock() {
            lock.unlock();
        }
    }

    /** The fenced lock, acquired with a token. */
    private static final class RedissonFencedLock extends RedissonLock {

        private final RFencedLock fenced;

        RedissonFencedLock(RFencedLock lock) {
            super(lock);
            this.fenced = lock;
        }

        @Override
        public void lock(long leaseMillis) {
            fenced.lockAndGetToken(leaseMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void lockWithWatchdog() {
            fenced.lockAndGetToken();
        }
    }
}
