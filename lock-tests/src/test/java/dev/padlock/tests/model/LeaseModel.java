package dev.padlock.tests.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The state of one {@link LeaseModelTest} sequence: two clients hand out leases of every kind on
 * a few names, and after every step the promise of a lease is checked against Redis. While no one
 * else interfered with its lock (an external {@code DEL}, the other client's {@code forceUnlock}),
 * a lease whose {@code safeFor()} is positive has its field on Redis, a TTL at least that long,
 * and no other lease of an exclusive side is safe at the same time; a lease released after a
 * positive {@code safeFor()} releases without error.
 */
final class LeaseModel implements AutoCloseable {
    /** Kinds of lock a lease is taken on; the exclusive ones share one name space, read and write another. */
    enum Kind {
        PLAIN, FAIR, FENCED, SPIN, READ, WRITE;

        boolean readWrite() {
            return this == READ || this == WRITE;
        }
    }

    static final int NAMES = 2;
    /** Upper bound for a step that should finish quickly: catches hangs only. */
    private static final long HANG_SECONDS = 30;

    private record Held(LockLease lease, String name, Kind kind, int client) {
    }

    private final RedisAdmin admin;
    private final List<LockClient> clients = new ArrayList<>();
    private final ExecutorService elsewhere = Executors.newCachedThreadPool();
    private final String run = UUID.randomUUID().toString();
    private final List<Held> held = new ArrayList<>();
    /** Names someone else changed behind the leases' backs since they were taken: not checked. */
    private final Set<String> interfered = new HashSet<>();

    LeaseModel(RedisAdmin admin, String uri) {
        this.admin = admin;
        for (int i = 0; i < 2; i++) {
            clients.add(LockClient.create(LockConfig.builder().redisUri(uri)
                    .watchdogTimeout(Duration.ofMillis(1_500)).build()));
        }
    }

    private String name(int name, Kind kind) {
        return "lease-model:" + run + (kind.readWrite() ? ":rw:" : ":x:") + name;
    }

    private RLock lock(int client, int name, Kind kind) {
        LockClient c = clients.get(client);
        String n = name(name, kind);
        return switch (kind) {
            case PLAIN -> c.getLock(n);
            case FAIR -> c.getFairLock(n);
            case FENCED -> c.getFencedLock(n);
            case SPIN -> c.getSpinLock(n);
            case READ -> c.getReadWriteLock(n).readLock();
            case WRITE -> c.getReadWriteLock(n).writeLock();
        };
    }

    void acquire(int client, int name, Kind kind, long waitMillis, long leaseMillis) {
        Optional<LockLease> lease = on(() -> lock(client, name, kind)
                .tryAcquire(Duration.ofMillis(waitMillis), Duration.ofMillis(leaseMillis)));
        lease.ifPresent(l -> {
            held.add(new Held(l, name(name, kind), kind, client));
            assertThat(l.token() != null).isEqualTo(kind == Kind.FENCED);
        });
        check();
    }

    /** Releases the {@code pick}-th lease on another thread, asynchronously or not. */
    void release(int pick, boolean async) {
        if (held.isEmpty()) {
            return;
        }
        Held h = held.remove(pick % held.size());
        boolean safe = !h.lease().safeFor().isZero() && !interfered.contains(h.name());
        try {
            on(() -> {
                if (async) {
                    try {
                        h.lease().releaseAsync().get(HANG_SECONDS, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
                    }
                } else {
                    h.lease().release();
                }
                return null;
            });
        } catch (IllegalMonitorStateException e) {
            assertThat(safe).as("a lease safe for a while was told it does not hold: " + e.getMessage()).isFalse();
        }
        h.lease().close(); // closing a released lease does nothing
        assertThat(h.lease().safeFor()).isZero();
        check();
    }

    void forceUnlock(int client, int name, Kind kind) {
        RLock lock = lock(client, name, kind);
        if (!on(lock::forceUnlock)) {
            check(); // nothing was deleted (the write side of a lock in read mode, say): every lease holds on
            return;
        }
        for (Held h : held) {
            if (h.name().equals(lock.getName())) {
                if (h.client() == client) {
                    assertThat(h.lease().safeFor()).as("this client deleted it").isZero();
                } else {
                    interfered.add(h.name());
                }
            }
        }
        check();
    }

    void delete(int name, boolean readWrite) {
        String n = name(name, readWrite ? Kind.READ : Kind.PLAIN);
        admin.commands().del(n);
        interfered.add(n);
        check();
    }

    /** Lets time pass (fixed leases run out, watchdog leases are renewed). */
    void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        check();
    }

    /** Extends the {@code pick}-th lease when it is a fixed one. */
    void extend(int pick, long millis) {
        if (held.isEmpty()) {
            return;
        }
        Held h = held.get(pick % held.size());
        try {
            h.lease().extend(Duration.ofMillis(millis));
        } catch (IllegalStateException watchdogLease) {
            return;
        }
        check();
    }

    /** The promise of every lease still held, against what Redis says now. */
    void check() {
        List<Held> safe = new ArrayList<>();
        for (Held h : held) {
            if (interfered.contains(h.name())) {
                continue;
            }
            // safeFor() first, then Redis: the promise made at the first read holds at the later ones,
            // less the time between (a renewal in between only lengthens the TTL). Read the other way
            // round, a watchdog renewal landing between the two reads raised safeFor() above a TTL
            // read before it (CI: 1,479 ms safe against a PTTL of 1,378 read just before the renewal)
            long readNanos = System.nanoTime();
            Duration safeFor = h.lease().safeFor();
            if (safeFor.isZero()) {
                continue;
            }
            long pttl = admin.commands().pttl(h.name());
            boolean fieldThere = on(h.lease()::isHeld);
            long sinceMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readNanos) + 1; // + PTTL's rounding
            if (sinceMillis >= safeFor.toMillis()) {
                continue; // the promise may have run out while Redis was read (CI: a lease safe for 5 ms)
            }
            assertThat(pttl + sinceMillis).as(h + " safe for " + safeFor + ", TTL read within " + sinceMillis + " ms")
                    .isGreaterThanOrEqualTo(safeFor.toMillis());
            assertThat(fieldThere).as(h + " safe for " + safeFor + ": its field on Redis").isTrue();
            safe.add(h);
        }
        for (Held a : safe) {
            for (Held b : safe) {
                if (a != b && a.name().equals(b.name())) {
                    assertThat(a.kind() == Kind.READ && b.kind() == Kind.READ)
                            .as("two leases safe on " + a.name() + ": " + a + " and " + b).isTrue();
                }
            }
        }
    }

    /** Everything released: no key of the run is left but fencing counters. */
    void finish() {
        while (!held.isEmpty()) {
            Held h = held.remove(0);
            h.lease().close();
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(HANG_SECONDS)).untilAsserted(() ->
                assertThat(admin.commands().keys("*" + run + "*")).allMatch(key -> key.startsWith("redisson_lock_token:")));
    }

    /** Runs {@code call} on another thread than the sequence's: leases belong to no thread. */
    private <T> T on(java.util.concurrent.Callable<T> call) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return call.call();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, elsewhere).get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        clients.forEach(LockClient::close);
        elsewhere.shutdownNow();
    }

    @Override
    public String toString() {
        return "LeaseModel{" + held.size() + " leases}";
    }
}
