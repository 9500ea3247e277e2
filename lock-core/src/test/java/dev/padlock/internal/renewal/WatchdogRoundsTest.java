package dev.padlock.internal.renewal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockObserver.RenewalOutcome;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The watchdog's rounds on a manual timer: their period, how owners are batched into calls (by
 * script, by Cluster slot, at most {@link Watchdog#BATCH} a call), what a failed call does, and what
 * the lease-lost listener and the observer are told.
 */
class WatchdogRoundsTest {
    private static final long LEASE = 30_000;
    private static final long PERIOD = LEASE / 3;

    private final ManualTimer timer = new ManualTimer();
    private final List<Call> calls = new ArrayList<>();
    private final List<String> hooked = new ArrayList<>();
    private final List<String> listened = Collections.synchronizedList(new ArrayList<>());
    private final List<String> observed = new ArrayList<>();

    private record Call(List<String> keys, List<String> args, CompletableFuture<List<Object>> reply) {
        void answer(Object... renewed) {
            reply.complete(List.of(renewed));
        }

        void answerAll(long value) {
            Object[] answers = new Object[args.size() - 1];
            java.util.Arrays.fill(answers, value);
            reply.complete(List.of(answers));
        }
    }

    private Watchdog watchdog(boolean cluster) {
        return new Watchdog((script, keys, args) -> {
            Call call = new Call(List.of(keys), List.of(args), new CompletableFuture<>());
            calls.add(call);
            return call.reply;
        }, (name, field) -> CompletableFuture.completedFuture(1L), cluster, LEASE,
                (name, owner) -> listened.add(name + "/" + owner), Runnable::run,
                (key, owner) -> hooked.add(key + "/" + owner), timer, timer,
                (owners, outcome) -> observed.add(outcome + ":" + owners));
    }

    private static LockProtocol lock(String name) {
        return new RenewingLock(name);
    }

    @Test
    void theFirstRoundRunsALeaseThirdAfterTheStart() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        timer.advance(PERIOD - 1);
        assertThat(calls).isEmpty();
        timer.advance(1);
        assertThat(calls).hasSize(1);
        watchdog.close();
    }

    @Test
    void roundsRepeatEveryLeaseThird() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        for (int round = 1; round <= 4; round++) {
            timer.advance(PERIOD);
            assertThat(calls).hasSize(round);
            calls.get(round - 1).answer(1L);
        }
        watchdog.close();
    }

    @Test
    void aRenewalSetsTheWatchdogLeaseAsItsFirstArgument() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 7, LeaseMillis.WATCHDOG, timer.nanoTime());

        timer.advance(PERIOD);

        assertThat(calls.get(0).args()).containsExactly(Long.toString(LEASE), "c:7");
        assertThat(calls.get(0).keys()).containsExactly("a");
        assertThat(watchdog.leaseMillis()).isEqualTo(LEASE);
        watchdog.close();
    }

    @Test
    void aRoundWithNothingToRenewSendsNothing() {
        Watchdog watchdog = watchdog(false);

        timer.advance(5 * PERIOD);

        assertThat(calls).isEmpty();
        assertThat(timer.pending()).as("only the next round").isOne();
        watchdog.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 99, 100, 101, 250})
    void ownersAreSentAtMostAHundredACall(int owners) {
        Watchdog watchdog = watchdog(false);
        for (int i = 0; i < owners; i++) {
            watchdog.onAcquired(lock("lock" + i), i, LeaseMillis.WATCHDOG, timer.nanoTime());
        }

        timer.advance(PERIOD);

        assertThat(calls).hasSize((owners + Watchdog.BATCH - 1) / Watchdog.BATCH);
        assertThat(calls.stream().mapToInt(c -> c.args().size() - 1).sum()).isEqualTo(owners);
        assertThat(calls).allSatisfy(c -> assertThat(c.args().size() - 1).isLessThanOrEqualTo(Watchdog.BATCH));
        watchdog.close();
    }

    @Test
    void onAClusterOwnersOfLocksInOtherSlotsGoInOtherCalls() {
        Watchdog watchdog = watchdog(true);
        watchdog.onAcquired(lock("{orders}:1"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("{orders}:2"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("{users}:1"), 3, LeaseMillis.WATCHDOG, timer.nanoTime());

        timer.advance(PERIOD);

        assertThat(calls).hasSize(2);
        assertThat(calls).anySatisfy(c -> assertThat(c.keys()).containsExactlyInAnyOrder("{orders}:1", "{orders}:2"));
        assertThat(calls).anySatisfy(c -> assertThat(c.keys()).containsExactly("{users}:1"));
        watchdog.close();
    }

    @Test
    void onOneServerOwnersOfEveryLockShareACall() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("{orders}:1"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("{users}:1"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());

        timer.advance(PERIOD);

        assertThat(calls).hasSize(1);
        watchdog.close();
    }

    @Test
    void aFailedCallLosesNobodyAndTheNextRoundTriesAgain() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);

        calls.get(0).reply().completeExceptionally(new RedisUnavailableException("renewing at 127.0.0.1:1", null));

        assertThat(hooked).isEmpty();
        assertThat(listened).isEmpty();
        assertThat(observed).containsExactly("ERROR:1");
        assertThat(watchdog.isRenewing(lock("a"), 1)).isTrue();
        timer.advance(PERIOD);
        assertThat(calls).hasSize(2);
        watchdog.close();
    }

    @Test
    void aLostLeaseIsToldToTheHookTheListenerAndTheObserver() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);

        calls.get(0).answer(0L);

        assertThat(hooked).containsExactly("a/1");
        assertThat(listened).containsExactly("a/1");
        assertThat(observed).containsExactly("RENEWED:0", "LOST:1");
        assertThat(watchdog.isRenewing(lock("a"), 1)).isFalse();
        watchdog.close();
    }

    @Test
    void renewedOwnersAreCountedForTheObserver() {
        Watchdog watchdog = watchdog(false);
        for (int owner = 1; owner <= 3; owner++) {
            watchdog.onAcquired(lock("a"), owner, LeaseMillis.WATCHDOG, timer.nanoTime());
        }
        timer.advance(PERIOD);

        calls.get(0).answerAll(1L);

        assertThat(observed).containsExactly("RENEWED:3", "LOST:0");
        assertThat(hooked).isEmpty();
    }

    @Test
    void aLostOwnerIsNotSentAgain() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("b"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        Call first = calls.get(0);
        first.answer(first.args().get(1).equals("c:1") ? 0L : 1L, first.args().get(1).equals("c:1") ? 1L : 0L);

        timer.advance(PERIOD);

        assertThat(calls.get(1).args()).containsExactly(Long.toString(LEASE), "c:2");
        watchdog.close();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheWatchdog() {
        Watchdog watchdog = new Watchdog((script, keys, args) -> {
            Call call = new Call(List.of(keys), List.of(args), new CompletableFuture<>());
            calls.add(call);
            return call.reply;
        }, (name, field) -> CompletableFuture.completedFuture(1L), false, LEASE,
                (name, owner) -> {
                    throw new IllegalStateException("listener bug");
                }, Runnable::run, (key, owner) -> { }, timer, timer);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("b"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        Call first = calls.get(0);

        first.answer(first.args().get(1).equals("c:1") ? 0L : 1L, first.args().get(1).equals("c:1") ? 1L : 0L);
        timer.advance(PERIOD);

        assertThat(calls).hasSize(2);
        watchdog.close();
    }

    @Test
    void aRoundAfterCloseSendsNothing() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        watchdog.close();
        timer.advance(10 * PERIOD);

        assertThat(calls).isEmpty();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void cancelAllEndsTheRenewalsOfOneNameAndNoOther() {
        Watchdog watchdog = watchdog(false);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("a"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("b"), 3, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(1);

        watchdog.cancelAll("a", timer.nanoTime());

        assertThat(watchdog.activeRenewals()).isOne();
        timer.advance(PERIOD);
        assertThat(calls.get(0).args()).containsExactly(Long.toString(LEASE), "c:3");
        watchdog.close();
    }
}
