package dev.padlock.spring.boot.locked;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.spring.LockNotAcquiredException;
import dev.padlock.spring.boot.PadlockAutoConfiguration;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * {@code @Locked} methods returning {@code Mono}, {@code Flux} and {@code CompletableFuture}, on a
 * real Redis: the lease is held from subscription (or the call) until what the method returned
 * completes, fails or is cancelled, whichever thread that happens on.
 */
@RedisTest
class LockedReactiveTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    private ApplicationContextRunner runner;

    @BeforeEach
    void runner(RedisEndpoint redis) {
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class, LockedAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + redis.uri())
                .withUserConfiguration(LockedBeans.OrdersConfiguration.class);
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }

    private static void awaitLocked(RLock lock, boolean locked) {
        await().atMost(LONG).until(lock::isLocked, held -> held == locked);
    }

    @Test
    void aMonoHoldsTheLockUntilItCompletesOrFails() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            RLock lock = context.getBean(LockClient.class).getLock("mono:" + id);
            Sinks.One<String> body = Sinks.one();

            StepVerifier.create(orders.mono(id, body.asMono()))
                    .then(() -> awaitLocked(lock, true))
                    .then(() -> body.tryEmitValue("done"))
                    .expectNext("done")
                    .expectComplete()
                    .verify(LONG);
            assertThat(lock.isLocked()).as("released before the completion reached the subscriber").isFalse();

            StepVerifier.create(orders.mono(id, Mono.error(new IllegalStateException("boom"))))
                    .expectErrorMessage("boom")
                    .verify(LONG);
            assertThat(lock.isLocked()).as("released after the error").isFalse();
        });
    }

    @Test
    void aFluxHoldsTheLockUntilItCompletesFailsOrIsCancelled() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            RLock lock = context.getBean(LockClient.class).getLock("flux:" + id);

            Sinks.Many<Integer> body = Sinks.many().unicast().onBackpressureBuffer();
            StepVerifier.create(orders.flux(id, body.asFlux()))
                    .then(() -> awaitLocked(lock, true))
                    .then(() -> body.tryEmitNext(1))
                    .expectNext(1)
                    .then(() -> assertThat(lock.isLocked()).isTrue())
                    .then(body::tryEmitComplete)
                    .expectComplete()
                    .verify(LONG);
            assertThat(lock.isLocked()).as("released after the completion").isFalse();

            StepVerifier.create(orders.flux(id, Flux.concat(Flux.just(1), Flux.error(new IllegalStateException("boom")))))
                    .expectNext(1)
                    .expectErrorMessage("boom")
                    .verify(LONG);
            assertThat(lock.isLocked()).as("released after the error").isFalse();

            StepVerifier.create(orders.flux(id, Flux.never()))
                    .then(() -> awaitLocked(lock, true))
                    .thenCancel()
                    .verify(LONG);
            awaitLocked(lock, false);
        });
    }

    @Test
    void nothingIsAcquiredBeforeSubscriptionAndEachSubscriptionRunsTheMethodAgain() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            Flux<Integer> flux = orders.flux(id, Flux.just(1, 2, 3));
            assertThat(context.getBean(LockClient.class).getLock("flux:" + id).isLocked()).isFalse();
            StepVerifier.create(flux).expectNext(1, 2, 3).expectComplete().verify(LONG);
            StepVerifier.create(flux).expectNext(1, 2, 3).expectComplete().verify(LONG);
        });
    }

    @Test
    void aReactiveCallThatCannotAcquireInTimeFailsAndTheMethodDoesNotRun() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            try (LockLease other = context.getBean(LockClient.class).getLock("flux:" + id).acquire()) {
                StepVerifier.create(orders.impatientFlux(id))
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(LockNotAcquiredException.class)
                                .hasMessageContaining("'flux:" + id + "'"))
                        .verify(LONG);
            }
            assertThat(orders.runs()).isEqualTo(0);
        });
    }

    @Test
    void aCompletableFutureHoldsTheLockUntilItCompletesAndIsReleasedWhenCancelled() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            RLock lock = context.getBean(LockClient.class).getLock("stage:" + id);

            CompletableFuture<String> body = new CompletableFuture<>();
            CompletableFuture<String> result = orders.stage(id, body);
            awaitLocked(lock, true);
            assertThat(result).isNotDone();
            body.complete("done");
            assertThat(result.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(lock.isLocked()).as("released before the future completed").isFalse();

            CompletableFuture<String> failing = new CompletableFuture<>();
            CompletableFuture<String> failed = orders.stage(id, failing);
            awaitLocked(lock, true);
            failing.completeExceptionally(new IllegalStateException("boom"));
            assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("boom");
            assertThat(lock.isLocked()).as("released after the failure").isFalse();

            CompletableFuture<String> endless = new CompletableFuture<>();
            CompletableFuture<String> cancelled = orders.stage(id, endless);
            awaitLocked(lock, true);
            cancelled.cancel(true);
            awaitLocked(lock, false);
            assertThatThrownBy(endless::join).as("the method's stage is cancelled too")
                    .isInstanceOf(CancellationException.class);
        });
    }

    @Test
    void aCompletableFutureCallThatCannotAcquireInTimeFailsAndTheMethodDoesNotRun() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            try (LockLease other = context.getBean(LockClient.class).getLock("stage:" + id).acquire()) {
                assertThatThrownBy(() -> orders.impatientStage(id).join()).isInstanceOf(CompletionException.class)
                        .hasCauseInstanceOf(LockNotAcquiredException.class);
            }
            assertThat(orders.runs()).isEqualTo(0);
        });
    }
}
