package dev.padlock.bench;

import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson (the version in the benchmarks pom) with its default configuration for one server:
 * a pool of command connections, a separate pool of pub/sub connections, a 30 s watchdog.
 */
final class RedissonLibrary implements LockLibrary {

    @Override
    public String name() {
        return "Redisson";
    }

    @Override
    public Client connect(String redisUri) {
        Config config = new Config();
        config.useSingleServer().setAddress(redisUri);
        RedissonClient client = Redisson.create(config);
        return new Client() {
            @Override
            public BenchLock lock(String name) {
                return new RedissonLock(client.getLock(name));
            }

            @Override
            public void close() {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        };
    }

    private static final class RedissonLock implements BenchLock {

        private final RLock lock;

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
}
