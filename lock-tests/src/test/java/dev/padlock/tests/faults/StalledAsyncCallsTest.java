package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis that stops answering (SIGSTOP) while asynchronous acquisitions with a bounded wait are
 * under way: each future fails with {@link RedisUnavailableException} naming the address (or
 * answers "not acquired") within its wait plus twice the command timeout, as a blocking call does, for every kind and every
 * asynchronous acquire method with a wait (the Reactor and Kotlin APIs go through
 * {@code tryAcquireAsync}). What the cut-off acquisitions leave on Redis expires by itself.
 */
@RedisTest(controllable = true)
@Tag("faults")
class StalledAsyncCallsTest {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    /** Slack on top of the bound for a loaded machine; below the 3.3 command timeouts the defect took. */
    private static final Duration SLACK = Duration.ofMillis(1_500);
    /** How long past its bound a call may run before the test calls it a hang. */
    private static final Duration HANG = Duration.ofSeconds(30);

    @RegisterExtension
    final Clients clients = new Clients();

    /**
     * Regression (issue 37, "keep every call, of every kind and API, within the bound"): an
     * asynchronous {@code tryLockAsync} during a stall answered at about three command timeouts and
     * a third, past its bound, because its first leave of its place was awaited.
     */
    @Test
    void asyncAcquisitionsDuringAStallFailWithinTheirWaitPlusTwiceTheCommandTimeout(RedisServerProcess server,
            RedisAdmin admin) throws Exception {
        LockClient client = clients.open(b -> b.commandTimeout(COMMAND_TIMEOUT));
        String name = Clients.uniqueName("stalled-async");
        Map<String, RLock> kinds = new LinkedHashMap<>();
        kinds.put("plain", client.getLock(name));
        kinds.put("fair", client.getFairLock(name + ":fair"));
        kinds.put("spin", client.getSpinLock(name + ":spin"));
        kinds.put("read", client.getReadWriteLock(name + ":rw").readLock());
        kinds.put("write", client.getReadWriteLock(name + ":rw2").writeLock());
        kinds.put("fenced", client.getFencedLock(name + ":fenced"));
        kinds.put("multi", client.getMultiLock(client.getLock(name + ":m1"), client.getLock(name + ":m2")));
        kinds.put("red", client.getRedLock(client.getLock(name + ":r1"), client.getLock(name + ":r2"),
                client.getLock(name + ":r3")));
        for (RLock lock : kinds.values()) {
            assertThat(lock.tryLock()).isTrue(); // connected, the scripts loaded
            lock.unlock();
        }
        String address = "127.0.0.1:" + server.port();

        List<Call> calls = new ArrayList<>();
        server.pause();
        try {
            long owner = 100;
            for (Map.Entry<String, RLock> kind : kinds.entrySet()) {
                RLock lock = kind.getValue();
                for (long waitMillis : new long[] {0, 700}) {
                    long tryLockOwner = owner++;
                    calls.add(Call.start(kind.getKey() + " tryLockAsync", waitMillis,
                            () -> lock.tryLockAsync(waitMillis, -1, TimeUnit.MILLISECONDS, tryLockOwner)));
                    calls.add(Call.start(kind.getKey() + " tryAcquireAsync", waitMillis,
                            () -> lock.tryAcquireAsync(Duration.ofMillis(waitMillis))));
                    if (lock instanceof RFencedLock fenced) {
                        long tokenOwner = owner++;
                        calls.add(Call.start(kind.getKey() + " tryLockAndGetTokenAsync", waitMillis,
                                () -> fenced.tryLockAndGetTokenAsync(waitMillis, 10_000, TimeUnit.MILLISECONDS,
                                        tokenOwner)));
                    }
                }
            }
            CompletableFuture.allOf(calls.stream().map(Call::ended).toArray(CompletableFuture[]::new))
                    .get(COMMAND_TIMEOUT.multipliedBy(2).plus(HANG).toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            server.resume();
        }

        SoftAssertions softly = new SoftAssertions();
        for (Call call : calls) {
            Duration bound = Duration.ofMillis(call.waitMillis).plus(COMMAND_TIMEOUT.multipliedBy(2));
            if (call.failure() != null) {
                softly.assertThat(call.failure()).as("%s (wait %d ms) during a stall", call.what, call.waitMillis)
                        .isInstanceOf(RedisUnavailableException.class);
                softly.assertThat(call.failure().getMessage()).as("%s names the address", call.what)
                        .contains(address);
            } else {
                // a call queued locally behind another, or a red lock short of its majority, may
                // answer "not acquired" instead; held it cannot be
                softly.assertThat(call.value).as("%s (wait %d ms) during a stall", call.what, call.waitMillis)
                        .isIn(false, Optional.empty(), null);
            }
            softly.assertThat(call.took()).as("time for %s (wait %d ms) to answer", call.what, call.waitMillis)
                    .isLessThanOrEqualTo(bound.plus(SLACK));
        }
        softly.assertAll();

        // whatever the cut-off acquisitions wrote once Redis ran again expires by itself
        List<String> keys = admin.commands().keys(name + "*");
        for (String key : keys) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(admin.commands().pttl(key))
                    .as("PTTL of %s", key).isNotEqualTo(-1L));
        }
        await().atMost(LockConfig.DEFAULT_WATCHDOG_TIMEOUT.multipliedBy(3)).untilAsserted(() -> {
            for (RLock lock : kinds.values()) {
                assertThat(lock.isLocked()).as("%s, its cut-off holds given back or run out", lock.getName())
                        .isFalse();
            }
        });
    }

    /** One asynchronous call started during the stall, and when and how its future ended. */
    private static final class Call {
        final String what;
        final long waitMillis;
        final long startNanos = System.nanoTime();
        final CompletableFuture<Long> ended = new CompletableFuture<>();
        volatile Throwable failure;
        volatile Object value;

        private Call(String what, long waitMillis) {
            this.what = what;
            this.waitMillis = waitMillis;
        }

        static Call start(String what, long waitMillis, Supplier<CompletableFuture<?>> call) {
            Call started = new Call(what, waitMillis);
            call.get().whenComplete((value, failure) -> {
                started.value = value;
                started.failure = failure;
                started.ended.complete(System.nanoTime());
            });
            return started;
        }

        CompletableFuture<Long> ended() {
            return ended;
        }

        Throwable failure() {
            return failure;
        }

        Duration took() {
            return Duration.ofNanos(ended.join() - startNanos);
        }
    }
}
