package dev.padlock.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LeaseLostException;
import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

/**
 * {@link ReactiveLock} against a real Redis, with Reactor's own {@link StepVerifier} and
 * {@link TestPublisher}: acquisition as a {@code Mono}, and work under a lease released on
 * completion, error and cancellation at every point (while waiting, before the work's first item,
 * between items), and stopped when its lease is lost.
 */
@RedisTest
class ReactiveLockTest {
    /** Upper bound for anything that should finish quickly: catches hangs only. */
    private static final Duration HANG = Duration.ofSeconds(30);

    private final List<LockClient> clients = new ArrayList<>();
    private LockClient client;
    private RedisAdmin admin;
    private ReactiveLock lock;

    @BeforeEach
    void open(RedisEndpoint redis, RedisAdmin admin) {
        this.client = LockClient.create(LockConfig.builder().redisUri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(3_000)).build());
        clients.add(client);
        this.admin = admin;
        this.lock = ReactiveLock.of(client.getLock("reactor:" + UUID.randomUUID()));
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    private boolean locked() {
        return admin.commands().exists(lock.lock().getName()) == 1;
    }

    @Test
    void aLeaseIsAcquiredAsAMonoAndReleasedOnAnotherScheduler() {
        StepVerifier.create(lock.acquire()
                        .publishOn(Schedulers.parallel())
                        .flatMap(lease -> Mono.fromFuture(lease.releaseAsync()).thenReturn(lease.lockName())))
                .expectNext(lock.lock().getName())
                .expectComplete()
                .verify(HANG);
        assertThat(locked()).isFalse();
    }

    @Test
    void tryAcquireIsEmptyWhenTheWaitRunsOut() {
        LockLease holder = lock.lock().acquire();
        StepVerifier.create(lock.tryAcquire(Duration.ofMillis(50))).expectComplete().verify(HANG);
        holder.release();
        StepVerifier.create(lock.tryAcquire(Duration.ZERO).flatMap(lease -> Mono.fromFuture(lease.releaseAsync())))
                .expectComplete().verify(HANG);
        assertThat(locked()).isFalse();
    }

    @Test
    void workRunsUnderTheLeaseAndTheLeaseIsReleasedOnCompletion() {
        StepVerifier.create(lock.withLock(Duration.ofSeconds(5), lease -> Flux.just(1, 2, 3)
                        .publishOn(Schedulers.boundedElastic()) // isHeld() blocks: not on the I/O thread
                        .doOnNext(i -> assertThat(lease.isHeld()).isTrue())))
                .expectNext(1, 2, 3)
                .expectComplete()
                .verify(HANG);
        assertThat(locked()).isFalse();
    }

    @Test
    void anErrorReachesTheSubscriberAfterTheRelease() {
        AtomicBoolean heldAtError = new AtomicBoolean(true);
        StepVerifier.create(lock.withLock(Duration.ofSeconds(5),
                        lease -> Flux.concat(Flux.just("a"), Flux.error(new IllegalStateException("boom")))))
                .expectNext("a")
                .consumeErrorWith(e -> {
                    heldAtError.set(locked());
                    assertThat(e).isInstanceOf(IllegalStateException.class).hasMessage("boom");
                })
                .verify(HANG);
        assertThat(heldAtError).as("released before the error is delivered").isFalse();
    }

    @Test
    void workWithoutValuesTellsWhetherItRanUnderTheLease() {
        AtomicBoolean heldWhileRunning = new AtomicBoolean();
        StepVerifier.create(lock.runWithLock(Duration.ofSeconds(5), lease -> Mono.fromRunnable(
                                () -> heldWhileRunning.set(lease.isHeld())) // blocks: not on the I/O thread
                        .subscribeOn(Schedulers.boundedElastic())))
                .expectNext(true)
                .expectComplete()
                .verify(HANG);
        assertThat(heldWhileRunning).isTrue();
        assertThat(locked()).isFalse();

        LockLease holder = lock.lock().acquire();
        AtomicBoolean subscribed = new AtomicBoolean();
        StepVerifier.create(lock.runWithLock(Duration.ofMillis(200),
                        lease -> Mono.empty().doOnSubscribe(s -> subscribed.set(true))))
                .expectNext(false)
                .expectComplete()
                .verify(HANG);
        holder.release();
        assertThat(subscribed).as("the work was never subscribed to").isFalse();
    }

    @Test
    void cancellingWhileWaitingLeavesNoLeaseBehind() {
        LockLease holder = lock.lock().acquire();
        AtomicBoolean workRan = new AtomicBoolean();
        StepVerifier.create(lock.withLock(Duration.ofSeconds(20), lease -> {
                    workRan.set(true);
                    return Flux.just(1);
                }))
                .expectSubscription()
                .thenAwait(Duration.ofMillis(100))
                .thenCancel()
                .verify(HANG);
        holder.release();
        await().atMost(HANG).until(() -> !locked());
        assertThat(workRan).isFalse();
    }

    @Test
    void cancellingBeforeTheFirstItemAndBetweenItemsReleasesTheLease() {
        TestPublisher<String> work = TestPublisher.create();
        StepVerifier.create(lock.withLock(Duration.ofSeconds(5), lease -> work))
                .then(() -> await().atMost(HANG).until(work::wasSubscribed))
                .thenCancel()
                .verify(HANG);
        work.assertCancelled();
        await().atMost(HANG).until(() -> !locked());

        TestPublisher<String> items = TestPublisher.create();
        StepVerifier.create(lock.withLock(Duration.ofSeconds(5), lease -> items))
                .then(() -> await().atMost(HANG).until(items::wasSubscribed))
                .then(() -> items.next("first"))
                .expectNext("first")
                .thenCancel()
                .verify(HANG);
        items.assertCancelled();
        await().atMost(HANG).until(() -> !locked());
    }

    @Test
    void workWhoseLeaseIsLostIsCancelledAndFailsWithTheReason() {
        TestPublisher<String> work = TestPublisher.create();
        StepVerifier.create(lock.withLock(Duration.ofSeconds(5), lease -> work))
                .then(() -> await().atMost(HANG).until(work::wasSubscribed))
                .then(() -> admin.commands().del(lock.lock().getName()))
                .expectError(LeaseLostException.class)
                .verify(HANG);
        work.assertCancelled();
    }

    @Test
    void aLeaseAcquiredWhileTheSubscriberCancelsIsReleased() {
        for (int i = 0; i < 50; i++) {
            Mono<LockLease> acquire = lock.acquire();
            StepVerifier.create(acquire).thenCancel().verify(HANG);
        }
        await().atMost(HANG).until(() -> !locked());
    }
}
