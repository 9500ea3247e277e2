package dev.padlock.tests.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The model of one permit-expirable semaphore that two Padlock clients share, through leases that
 * end, holders that die (a client closed: its renewals stop) and time that passes. {@link #check()}
 * after every step: the free permits (once the ended leases are back) plus the leases on Redis
 * equal the total; every lease that says it is safe is on Redis; and no lease on Redis has ended
 * (beyond the moment of the reading), so no ended holder counts.
 */
final class PermitLeaseModel implements AutoCloseable {
    private static final long HANG_SECONDS = 30;
    /** The watchdog's lease: renewed every 300 ms. */
    static final Duration WATCHDOG = Duration.ofMillis(900);

    private final RedisAdmin admin;
    private final String uri;
    private final LockClient[] clients = new LockClient[2];
    private final List<LockClient> closed = new ArrayList<>();
    private final String name = "permit-model:" + UUID.randomUUID();
    private long total;
    private record Held(PermitLease permit, int client) {
    }

    private final List<Held> held = new ArrayList<>();

    PermitLeaseModel(RedisAdmin admin, String uri) {
        this.admin = admin;
        this.uri = uri;
        for (int i = 0; i < clients.length; i++) {
            clients[i] = open();
        }
    }

    private LockClient open() {
        return LockClient.create(LockConfig.builder().redisUri(uri).watchdogTimeout(WATCHDOG).build());
    }

    private RPermitExpirableSemaphore semaphore(int client) {
        return clients[client % clients.length].getPermitExpirableSemaphore(name);
    }

    void add(int client, int permits) {
        semaphore(client).addPermits(permits);
        total += permits;
        check();
    }

    void acquire(int client, long leaseMillis, long waitMillis) throws InterruptedException {
        Optional<PermitLease> permit = semaphore(client).tryAcquire(Duration.ofMillis(waitMillis),
                Duration.ofMillis(leaseMillis));
        permit.ifPresent(p -> held.add(new Held(p, client % clients.length)));
        check();
    }

    void release(int pick) {
        if (!held.isEmpty()) {
            PermitLease permit = held.remove(pick % held.size()).permit();
            Duration safe = permit.safeFor();
            try {
                permit.release();
            } catch (IllegalStateException notHeld) {
                assertThat(safe).as("a lease told safe for %s no longer held: %s", safe, notHeld.getMessage()).isZero();
            }
        }
        check();
    }

    /** Time passes: fixed leases end, watchdog leases are renewed. */
    void pause(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - until < 0) {
            check();
        }
    }

    /** A holder dies: its client stops (no renewal, no release), and a new one takes its place. */
    void kill(int client) {
        int index = client % clients.length;
        closed.add(clients[index]);
        held.removeIf(h -> h.client() == index); // never released: their leases end on Redis by themselves
        clients[index].close();
        clients[index] = open();
        check();
    }

    /** Free (ended leases given back) plus leases equals the total; every safe lease is there; none ended. */
    void check() {
        List<PermitLease> safe = held.stream().map(Held::permit).filter(permit -> !permit.safeFor().isZero()).toList();
        List<String> time = admin.commands().time(); // before the reading: a lease that ended by then is given back
        long beforeMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        long free = semaphore(0).availablePermits();
        String leases = LockKeys.permitLeases(name);
        long inUse = admin.commands().zcard(leases);
        assertThat(free + inUse).as("free %d + in use %d = total %d", free, inUse, total).isEqualTo(total);
        for (PermitLease permit : safe) {
            // safe when listed, and the reading comes later: a lease whose safe time ended meanwhile
            // (a late renewal on a loaded machine) may be gone; one still told safe after it must not be
            if (admin.commands().zscore(leases, permit.permitId()) == null) {
                assertThat(permit.safeFor()).as("%s, told safe, on Redis", permit).isZero();
            }
        }
        // availablePermits, after beforeMillis, gave back every lease that had ended by then
        assertThat(admin.commands().zcount(leases, io.lettuce.core.Range.create(0, beforeMillis)))
                .as("leases that ended and still count").isZero();
    }

    /** Releases what is held, waits for the leases of the dead to end, and checks every permit is free. */
    void finish() {
        for (Held h : held) {
            h.permit().close();
        }
        held.clear();
        org.awaitility.Awaitility.await("every permit back").atMost(Duration.ofSeconds(HANG_SECONDS))
                .pollInterval(Duration.ofMillis(50)).until(() -> semaphore(0).availablePermits() == total);
    }

    @Override
    public void close() {
        try {
            admin.commands().del(name, LockKeys.permitLeases(name));
        } finally {
            for (LockClient client : clients) {
                client.close();
            }
            closed.forEach(LockClient::close);
        }
    }

    @Override
    public String toString() {
        return "permit-expirable semaphore " + name + ": total " + total + ", held " + held.size();
    }
}
