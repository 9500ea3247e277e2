package dev.padlock.internal.renewal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.lease.LeaseMillis;
import dev.padlock.internal.protocol.LockProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The watchdog's state machine alone: a manual timer, and a sender that records calls instead of Redis. */
class WatchdogTest {
    private static final long LEASE = 3_000;
    private static final long PERIOD = LEASE / 3;

    private final ManualTimer timer = new ManualTimer();
    private final List<Call> calls = new ArrayList<>();
    private final List<String> lost = new ArrayList<>();
    /** What the fake hold counter answers. */
    private long holds = 2;
    private final Watchdog watchdog = new Watchdog((script, keys, args) -> {
        Call call = new Call(List.of(args).subList(1, args.length), new CompletableFuture<>());
        calls.add(call);
        return call.reply;
    }, (name, field) -> CompletableFuture.completedFuture(holds), false, LEASE, null, Runnable::run, (key, owner) -> lost.add(key + "/" + owner), timer, timer);

    private record Call(List<String> owners, CompletableFuture<List<Object>> reply) {
        void answer(Object... renewed) {
            reply.complete(List.of(renewed));
        }
    }

    private static LockProtocol lock(String name) {
        return new RenewingLock(name);
    }

    @Test
    void everyOwnerOfOneLockIsRenewedInOneCall() {
        LockProtocol readLock = lock("a");
        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(readLock, 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0).owners()).containsExactlyInAnyOrder("c:1", "c:2");
    }

    @Test
    void aLostOwnerTakesNoOtherOwnersRenewalWithIt() {
        LockProtocol readLock = lock("a");
        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(readLock, 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        Call first = calls.get(0);
        first.answer(first.owners().get(0).equals("c:1") ? 0L : 1L, first.owners().get(0).equals("c:1") ? 1L : 0L);
        assertThat(lost).containsExactly("a/1");
        assertThat(watchdog.activeRenewals()).isOne();
        timer.advance(PERIOD);
        assertThat(calls.get(1).owners()).containsExactly("c:2");
    }

    @Test
    void aReleasePausesTheRenewalAndItsReplyDecides() {
        LockProtocol plain = lock("a");
        watchdog.onAcquired(plain, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        assertThat(watchdog.beforeRelease(plain, 1)).as("renewed: an inner release re-arms").isTrue();
        timer.advance(PERIOD);
        assertThat(calls).as("nothing renewed while the release is in flight").isEmpty();
        watchdog.afterRelease(plain, 1, true); // holds remain
        timer.advance(PERIOD);
        assertThat(calls).hasSize(1);
        calls.get(0).answer(1L);

        watchdog.beforeRelease(plain, 1);
        watchdog.afterRelease(plain, 1, false); // the last hold
        assertThat(watchdog.activeRenewals()).isZero();
        timer.advance(3 * PERIOD);
        assertThat(calls).hasSize(1);
        assertThat(lost).isEmpty();
    }

    @Test
    void aRenewalThatFindsTheOwnerGoneWhileItsReleaseIsInFlightIsNoLoss() {
        LockProtocol plain = lock("a");
        watchdog.onAcquired(plain, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        watchdog.beforeRelease(plain, 1);
        calls.get(0).answer(0L);
        assertThat(lost).as("the release's reply decides").isEmpty();
        watchdog.afterRelease(plain, 1, false);
        assertThat(watchdog.activeRenewals()).isZero();
    }

    /**
     * Simulator seed 2 (a read lock): a renewal found the owner's holds gone while its re-entry was
     * in flight; the re-entry, answered after the loss was told, made a first hold, which a new
     * renewal kept for ever while its owner, told it lost the lock, unlocked no more. An
     * acquisition sent before its owner was told of the loss is covered by it.
     */
    @Test
    void anAcquisitionSentBeforeItsOwnerWasToldOfALossIsNotRenewed() {
        LockProtocol readLock = lock("a");
        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        long reentrySent = timer.nanoTime();
        timer.advance(1);
        calls.get(0).answer(0L); // the owner's holds are gone: it is told so

        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, reentrySent);

        assertThat(lost).containsExactly("a/1");
        assertThat(watchdog.isRenewing(readLock, 1)).isFalse();
        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        assertThat(watchdog.isRenewing(readLock, 1)).as("an acquisition sent after it").isTrue();
    }

    /**
     * Simulator seed 99 (a fair lock): a wait sent before its owner was told of a loss held by a
     * grant answered after it. Nothing renewed that hold and nothing told its owner, which went on
     * believing it held after its TTL ran out. It is told lost when its TTL can have run out, unless
     * it was released before.
     */
    @Test
    void aHoldNotRenewedSinceItsAcquisitionWasSentBeforeALossIsToldLostAtItsEndUnlessReleased() {
        LockProtocol fairLock = lock("a");
        watchdog.onAcquired(fairLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        long waitSent = timer.nanoTime();
        timer.advance(1);
        calls.get(0).answer(0L); // told it lost its hold
        watchdog.onAcquired(fairLock, 1, LeaseMillis.WATCHDOG, waitSent);
        assertThat(watchdog.isRenewing(fairLock, 1)).isFalse();

        timer.advance(LEASE);

        assertThat(lost).containsExactly("a/1", "a/1");
        assertThat(watchdog.toldLostOnSilence(fairLock, 1)).isTrue();

        LockProtocol other = lock("b");
        watchdog.onAcquired(other, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(PERIOD);
        long sent = timer.nanoTime();
        timer.advance(1);
        calls.get(calls.size() - 1).answer(0L);
        watchdog.onAcquired(other, 1, LeaseMillis.WATCHDOG, sent);
        watchdog.beforeRelease(other, 1);
        watchdog.afterRelease(other, 1, false);
        timer.advance(LEASE);
        assertThat(lost).as("released before its end: no second loss").containsExactly("a/1", "a/1", "b/1");
    }

    /**
     * Simulator seed 12 (a read lock): a fixed-lease re-entry's later end stayed the renewal's
     * confirmed end after that re-entry was released, so a stall past the remaining hold's own TTL
     * went untold (a read hold's lease is its own). After a release that leaves holds, the end falls
     * back to what the watchdog's lease set.
     */
    @Test
    void aReleaseThatLeavesHoldsDropsTheLaterEndOfTheFixedReentryThatWentWithIt() {
        LockProtocol readLock = lock("a");
        watchdog.onAcquired(readLock, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(readLock, 1, 10 * LEASE, timer.nanoTime()); // Redis counts 2 (holds)
        watchdog.beforeRelease(readLock, 1);
        watchdog.afterRelease(readLock, 1, true); // the re-entry went; no renewal is answered from now on

        timer.advance(LEASE);

        assertThat(lost).containsExactly("a/1");
    }

    @Test
    void aFixedLeaseAloneIsNotRenewedAndAFixedReentryKeepsTheWatchdogLease() {
        LockProtocol plain = lock("a");
        watchdog.onAcquired(plain, 1, LEASE, timer.nanoTime());
        assertThat(watchdog.activeRenewals()).isZero();
        watchdog.onAcquired(plain, 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(plain, 2, LEASE, timer.nanoTime());
        assertThat(watchdog.isRenewing(plain, 2)).isTrue();
    }

    @Test
    void aFixedLeaseFirstHoldDoesNotInheritARenewalLeftFromALostHold() {
        LockProtocol plain = lock("a");
        watchdog.onAcquired(plain, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        holds = 1; // the watchdog hold was lost behind the owner's back; this is a first hold
        watchdog.onAcquired(plain, 1, LEASE, timer.nanoTime());
        assertThat(watchdog.isRenewing(plain, 1)).isFalse();
    }

    @Test
    void aHandOffWithAFixedLeaseEndsAnyRenewalTheSuccessorHad() {
        LockProtocol plain = lock("a");
        watchdog.onAcquired(plain, 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onHandedOver(plain, 1, LEASE, timer.nanoTime());
        assertThat(watchdog.activeRenewals()).isZero();
        watchdog.onHandedOver(plain, 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        assertThat(watchdog.isRenewing(plain, 2)).isTrue();
    }

    @Test
    void aForceUnlockEndsEveryOwnersRenewalOfThatNameOnly() {
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("a"), 2, LeaseMillis.WATCHDOG, timer.nanoTime());
        watchdog.onAcquired(lock("b"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        timer.advance(1);
        watchdog.cancelAll("a", timer.nanoTime());
        timer.advance(PERIOD);
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0).owners()).containsExactly("c:1");
        assertThat(watchdog.activeRenewals()).isOne();
    }

    /**
     * Simulator seed 21 (a fair lock): a grant was read after this client's force unlock of the lock
     * had run but before its reply came; the reply then ended the new holder's renewal as well, and
     * nothing told it. A hold confirmed after the force unlock was sent is left to its renewal.
     */
    @Test
    void aForceUnlockLeavesTheRenewalOfAHoldConfirmedAfterItWasSent() {
        long forceUnlockSent = timer.nanoTime();
        timer.advance(1);
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());

        watchdog.cancelAll("a", forceUnlockSent);

        assertThat(watchdog.isRenewing(lock("a"), 1)).isTrue();
    }

    @Test
    void closeLeavesNothingScheduled() {
        watchdog.onAcquired(lock("a"), 1, LeaseMillis.WATCHDOG, timer.nanoTime());
        assertThat(timer.pending()).as("the next round, and the check for silence").isEqualTo(2);
        watchdog.close();
        assertThat(timer.pending()).isZero();
        assertThat(watchdog.activeRenewals()).isZero();
    }
}
