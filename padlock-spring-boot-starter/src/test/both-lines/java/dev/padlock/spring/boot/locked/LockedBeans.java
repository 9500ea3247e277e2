package dev.padlock.spring.boot.locked;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.spring.Locked;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The beans the {@link Locked} tests call, on both Boot lines: each blocking method records
 * whether its lock was held on Redis while it ran. (The test sources are compiled without
 * {@code -parameters}, so names use {@code #p0}.)
 */
final class LockedBeans {
    private LockedBeans() {
    }

    /**
     * A bean whose methods run under locks; {@link #runs()} counts bodies that ran. Its state is
     * read through methods: the proxy's own fields are not the bean's.
     */
    public static class Orders {
        private final LockClient client;
        private final AtomicInteger runs = new AtomicInteger();
        private volatile boolean heldInside;

        Orders(LockClient client) {
            this.client = client;
        }

        public int runs() {
            return runs.get();
        }

        /** Whether the last blocking method to record it found its lock held on Redis. */
        public boolean heldInside() {
            return heldInside;
        }

        public void forget() {
            heldInside = false;
        }

        @Locked(name = "'order:' + #p0", waitTime = "10s")
        public String ship(String id) {
            runs.incrementAndGet();
            heldInside = client.getLock("order:" + id).isLocked();
            return "shipped " + id;
        }

        @Locked(name = "'order:' + #p0", leaseTime = "30s")
        public void fail(String id) {
            runs.incrementAndGet();
            heldInside = client.getLock("order:" + id).isLocked();
            throw new IllegalStateException("boom " + id);
        }

        @Locked(name = "'order:' + #p0", waitTime = "200ms")
        public void impatient(String id) {
            runs.incrementAndGet();
        }

        @Locked(name = "#p0", waitTime = "1s")
        public void named(String name) {
            runs.incrementAndGet();
        }

        @Locked(name = "'fair:' + #p0", kind = Locked.Kind.FAIR, waitTime = "10s")
        public void fair(String id) {
            heldInside = client.getFairLock("fair:" + id).isLocked();
        }

        @Locked(name = "'rw:' + #p0", kind = Locked.Kind.READ, waitTime = "10s")
        public void read(String id) throws InterruptedException {
            RReadWriteLock rw = client.getReadWriteLock("rw:" + id);
            heldInside = rw.readLock().isLocked() && tryNow(rw.readLock()) && !tryNow(rw.writeLock());
        }

        @Locked(name = "'rw:' + #p0", kind = Locked.Kind.WRITE, waitTime = "10s")
        public void write(String id) throws InterruptedException {
            RReadWriteLock rw = client.getReadWriteLock("rw:" + id);
            heldInside = rw.writeLock().isLocked() && !tryNow(rw.readLock()) && !tryNow(rw.writeLock());
        }

        @Locked(name = "'fenced:' + #p0", kind = Locked.Kind.FENCED, waitTime = "10s")
        public void fenced(String id) {
            heldInside = client.getFencedLock("fenced:" + id).getToken() != null;
        }

        @Locked(name = "'mono:' + #p0", waitTime = "10s")
        public Mono<String> mono(String id, Mono<String> body) {
            return body;
        }

        @Locked(name = "'flux:' + #p0", waitTime = "10s")
        public Flux<Integer> flux(String id, Flux<Integer> body) {
            return body;
        }

        @Locked(name = "'flux:' + #p0", waitTime = "200ms")
        public Flux<Integer> impatientFlux(String id) {
            runs.incrementAndGet();
            return Flux.just(1);
        }

        @Locked(name = "'stage:' + #p0", waitTime = "10s")
        public CompletableFuture<String> stage(String id, CompletableFuture<String> body) {
            runs.incrementAndGet();
            return body;
        }

        @Locked(name = "'stage:' + #p0", waitTime = "200ms")
        public CompletableFuture<String> impatientStage(String id) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(id);
        }

        /** Not locked: the proxy passes it through. */
        public String plain() {
            return "plain";
        }

        /** Another holder's attempt, now: whether it could acquire (released at once). */
        private static boolean tryNow(RLock lock) throws InterruptedException {
            Optional<LockLease> lease = lock.tryAcquire(Duration.ZERO);
            lease.ifPresent(LockLease::release);
            return lease.isPresent();
        }
    }

    /** The {@link Orders} bean. */
    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {
        @Bean
        Orders orders(LockClient client) {
            return new Orders(client);
        }
    }

    /** A name that is not SpEL. */
    public static class BadName {
        @Locked(name = "'order:' +")
        public void ship(String id) {
        }
    }

    /** A wait that is not a duration. */
    public static class BadWait {
        @Locked(name = "'order:' + #p0", waitTime = "soon")
        public void ship(String id) {
        }
    }

    /** A duration without a unit. */
    public static class BareNumber {
        @Locked(name = "'order'", leaseTime = "30", waitTime = "0")
        public void ship() {
        }
    }

    /** A parameter by name, without {@code -parameters}. */
    public static class UnknownParameter {
        @Locked(name = "'order:' + #order")
        public void ship(String order) {
        }
    }

    /** A second {@code @Locked} method that is wrong: every method is checked, not the first only. */
    public static class SecondBad {
        @Locked(name = "'a'")
        public void first() {
        }

        @Locked(name = "'b'", leaseTime = "-1s")
        public void second() {
        }
    }
}
