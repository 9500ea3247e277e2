package dev.padlock.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LeaseLostException;
import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.PermitLease;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

/**
 * {@link ReactivePermits} against a real Redis, with Reactor's {@link StepVerifier}: a permit as a
 * {@code Mono}, and work under a permit given back on completion, error and cancellation, and
 * stopped when the permit is lost.
 */
@RedisTest
class ReactivePermitsTest {
    private static final Duration HANG = Duration.ofSeconds(30);

    private LockClient client;
    private RedisAdmin admin;
    private ReactivePermits permits;
    private String name;

    @BeforeEach
    void open(RedisEndpoint redis, RedisAdmin admin) {
        this.client = LockClient.create(LockConfig.builder().redisUri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(1_500)).build());
        this.admin = admin;
        this.name = "reactor-permits:" + UUID.randomUUID();
        this.permits = ReactivePermits.of(client.getPermitExpirableSemaphore(name));
        permits.semaphore().trySetPermits(1);
    }

    @AfterEach
    void close() {
        client.close();
    }

    private long inUse() {
        return admin.commands().zcard(LockKeys.permitLeases(name));
    }

    @Test
    void aPermitAsAMonoAndNoneWhileItIsHeld() {
        PermitLease permit = permits.acquire(Duration.ZERO).block(HANG);
        assertThat(permit).isNotNull();
        StepVerifier.create(permits.tryAcquire(Duration.ofMillis(100), Duration.ZERO)).expectComplete().verify(HANG);
        permit.release();
        assertThat(inUse()).isZero();
    }

    @Test
    void workRunsUnderAPermitGivenBackOnCompletionAndOnError() {
        StepVerifier.create(permits.withPermit(HANG, permit -> Flux.just(inUse(), 2L)))
                .expectNext(1L, 2L).expectComplete().verify(HANG);
        await().atMost(HANG).until(() -> inUse() == 0);
        StepVerifier.create(permits.withPermit(HANG, permit -> Mono.error(new IllegalStateException("boom"))))
                .expectErrorMessage("boom").verify(HANG);
        await().atMost(HANG).until(() -> inUse() == 0);
        assertThat(permits.semaphore().availablePermits()).isEqualTo(1);
    }

    @Test
    void aCancelGivesThePermitBack() {
        TestPublisher<String> work = TestPublisher.create();
        StepVerifier.create(permits.withPermit(HANG, permit -> work))
                .then(() -> await().atMost(HANG).until(work::wasSubscribed))
                .then(() -> work.next("first"))
                .expectNext("first")
                .thenCancel().verify(HANG);
        await().atMost(HANG).until(() -> inUse() == 0);
        assertThat(permits.semaphore().availablePermits()).isEqualTo(1);
    }

    @Test
    void aLostPermitStopsTheWork() {
        TestPublisher<String> work = TestPublisher.create();
        StepVerifier.create(permits.withPermit(HANG, permit -> work))
                .then(() -> await().atMost(HANG).until(work::wasSubscribed))
                .then(() -> admin.commands().del(LockKeys.permitLeases(name)))
                .expectError(LeaseLostException.class).verify(HANG);
        work.assertWasCancelled();
    }
}
