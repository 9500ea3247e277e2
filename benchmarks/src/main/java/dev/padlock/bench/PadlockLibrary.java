package dev.padlock.bench;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import java.util.concurrent.TimeUnit;

/** Padlock with its default configuration ({@link LockClient#connect(String)}). */
final class PadlockLibrary implements LockLibrary {

    @Override
    public String name() {
        return "Padlock";
    }

    @Override
    public Client connect(String redisUri) {
        LockClient client = LockClient.connect(redisUri);
        return new Client() {
            @Override
            public BenchLock lock(String name) {
                return new PadlockLock(client.getLock(name));
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    private static final class PadlockLock implements BenchLock {

        private final RLock lock;

        PadlockLock(RLock lock) {
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
