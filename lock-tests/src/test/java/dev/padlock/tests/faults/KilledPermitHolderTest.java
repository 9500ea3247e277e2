package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.ChildJvm;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A permit holder killed with SIGKILL (issue 41): its watchdog lease is no longer renewed, and once
 * it ends, a waiter of another JVM gets the permit (woken by the lease's end, not by a message,
 * since nobody released it), and no permit is lost: when the waiter gives it back, the
 * semaphore has its one permit free and no lease left.
 */
@RedisTest
@Tag("faults")
class KilledPermitHolderTest {
    private static final Duration HANG = Duration.ofSeconds(120);
    /** Renewed every second: a renewal late by up to two seconds on a loaded machine still lands in time. */
    private static final long WATCHDOG_MS = 3_000;

    private Process worker;
    private LockClient client;

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.destroyForcibly();
        }
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aKilledHoldersPermitComesBackWhenItsLeaseEnds(RedisEndpoint redis, RedisAdmin admin) throws Exception {
        String name = "killed-permit:" + UUID.randomUUID();
        client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).build());
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        worker = ChildJvm.of(PermitWorker.class).args(redis.uri(), name, Long.toString(WATCHDOG_MS)).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> held = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("HELD ")) {
                        return line.substring(5);
                    }
                }
                throw new IllegalStateException("the worker ended without a permit");
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        String permitId = held.get(HANG.toSeconds(), TimeUnit.SECONDS);
        String leases = LockKeys.permitLeases(name);
        assertThat(admin.commands().zscore(leases, permitId)).as("the worker's permit on Redis").isNotNull();

        CompletableFuture<Optional<PermitLease>> waiting = semaphore.tryAcquireAsync(HANG);
        await("the waiter subscribed").atMost(HANG).pollInterval(Duration.ofMillis(5)).until(() -> {
            String channel = LockKeys.semaphoreChannel(name);
            return admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= 1;
        });
        // the watchdog renews it meanwhile: still held after more than one lease
        long renewedUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * WATCHDOG_MS);
        await("two leases' time").atMost(HANG).pollInterval(Duration.ofMillis(50)).until(() -> System.nanoTime() - renewedUntil > 0);
        assertThat(waiting).as("the live holder's permit is renewed").isNotDone();

        worker.destroyForcibly(); // SIGKILL: no release, no more renewals
        worker.waitFor(HANG.toSeconds(), TimeUnit.SECONDS);
        long killed = System.nanoTime();
        PermitLease permit = waiting.get(HANG.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.printf("the killed holder's permit came to the waiter %d ms after the kill (watchdog lease %d ms)%n",
                millis, WATCHDOG_MS);
        assertThat(admin.commands().zscore(leases, permitId)).as("the killed holder's lease is gone").isNull();
        permit.release();
        assertThat(semaphore.availablePermits()).as("no permit lost").isEqualTo(1);
        assertThat(admin.commands().zcard(leases)).isZero();
    }
}
