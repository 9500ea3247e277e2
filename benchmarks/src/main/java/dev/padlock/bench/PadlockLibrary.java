package dev.padlock.bench;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RSemaphore;
import dev.padlock.micrometer.PadlockMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Padlock with its default configuration: {@link LockClient#connect(String)} for one server,
 * {@link LockConfig.Builder#clusterUris} with the seeds for a Cluster. With the system property
 * {@value #METRICS_PROPERTY}{@code =true}, each client records lock-micrometer's meters into a
 * {@link SimpleMeterRegistry}: the cost of the binder.
 */
final class PadlockLibrary implements LockLibrary {
    static final String METRICS_PROPERTY = "padlock.bench.metrics";

    @Override
    public String name() {
        return "Padlock";
    }

    @Override
    public Client connect(RedisTarget target) {
        LockConfig.Builder config = target.topology() == Topology.SINGLE
                ? LockConfig.builder().redisUri(target.uri())
                : LockConfig.builder().clusterUris(target.uris().toArray(String[]::new));
        if (Boolean.getBoolean(METRICS_PROPERTY)) {
            PadlockMetrics metrics = PadlockMetrics.create();
            metrics.bindTo(new SimpleMeterRegistry());
            config.observer(metrics);
        }
        LockClient client = LockClient.create(config.build());
        return new Client() {
            @Override
            public BenchLock lock(LockKind kind, List<String> names) {
                if (names.size() != kind.locks()) {
                    throw new IllegalArgumentException(kind + " needs " + kind.locks() + " names, got " + names);
                }
                String name = names.get(0);
                switch (kind) {
                    case LOCK:
                        return new PadlockLock(client.getLock(name));
                    case FAIR:
                        return new PadlockLock(client.getFairLock(name));
                    case READ:
                        return new PadlockLock(client.getReadWriteLock(name).readLock());
                    case WRITE:
                        return new PadlockLock(client.getReadWriteLock(name).writeLock());
                    case FENCED:
                        return new PadlockFencedLock(client.getFencedLock(name));
                    case SPIN:
                        return new PadlockLock(client.getSpinLock(name));
                    case MULTI:
                        return new PadlockLock(client.getMultiLock(components(names)));
                    case RED:
                        return new PadlockLock(client.getRedLock(components(names)));
                    default:
                        throw new IllegalArgumentException("Unknown kind " + kind);
                }
            }

            @Override
            public BenchLock multiLock(List<String> names) {
                return new PadlockLock(client.getMultiLock(components(names)));
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

            @Override
            public void close() {
                client.close();
            }
        };
    }

    private static class PadlockLock implements BenchLock {

        final RLock lock;

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

    /**
     * The fenced lock, acquired with a token. {@link RFencedLock} has no blocking
     * {@code lockAndGetToken(lease, unit)} (Redisson's has), so a fixed lease goes through the
     * asynchronous twin for the calling thread, which is what the blocking methods wait on too.
     */
    private static final class PadlockFencedLock extends PadlockLock {

        private final RFencedLock fenced;

        PadlockFencedLock(RFencedLock lock) {
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
