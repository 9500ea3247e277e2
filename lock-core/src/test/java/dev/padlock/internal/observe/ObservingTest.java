package dev.padlock.internal.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.padlock.LockObserver;
import dev.padlock.LockObserver.AcquisitionEnd;
import dev.padlock.LockObserver.HoldEnd;
import dev.padlock.LockObserver.Kind;
import dev.padlock.LockObserver.Outcome;
import dev.padlock.LockObserver.RenewalOutcome;
import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.observe.Observing.ObservedAcquire;
import dev.padlock.internal.observe.RecordingObserver.Lost;
import dev.padlock.internal.observe.RecordingObserver.Renewed;
import dev.padlock.internal.observe.RecordingObserver.Started;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import java.lang.reflect.Proxy;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What a {@link LockObserver} is told of acquisitions, holds, renewals and lost leases. */
class ObservingTest {
    private static final long OWNER = 7;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ManualTimer clock = new ManualTimer();
    private final RecordingObserver observer = new RecordingObserver();
    private final Observing observing = new Observing(observer, clock);
    /** A read lock: its local key is not its name. */
    private final LockProtocol orders = protocol("orders", "orders#read");

    // ---- acquisitions

    @Test
    void anAcquisitionStartIsToldWithTheLocksNameKindAndOwner() {
        start(new Pending(), WAIT_NANOS);

        assertThat(observer.started).containsExactly(new Started("orders", Kind.READ, OWNER));
        assertThat(observer.ended).isEmpty();
    }

    @Test
    void anAcquiredLockIsToldWithItsWaitMeasuredOnTheEngineClock() {
        Pending pending = new Pending();
        ObservedAcquire observed = start(pending, WAIT_NANOS);
        clock.advance(250);

        pending.result.complete(true);

        assertThat(observer.onlyEnd()).isEqualTo(new AcquisitionEnd("orders", Kind.READ, OWNER, Outcome.ACQUIRED,
                TimeUnit.MILLISECONDS.toNanos(250), false, false));
        assertThat(observer.ended.get(0).context()).as("what acquisitionStarted returned").isEqualTo("acquisition-1");
        assertThat(observed.reported()).isCompletedWithValue(true);
        assertThat(observing.holds()).isOne();
    }

    @Test
    void theCallerIsToldOnlyAfterTheObserver() {
        AtomicReference<ObservedAcquire> observed = new AtomicReference<>();
        AtomicReference<Boolean> callerToldFirst = new AtomicReference<>();
        Observing watching = new Observing(new LockObserver() {
            @Override
            public Object acquisitionEnded(AcquisitionEnd end, Object context) {
                callerToldFirst.set(observed.get().reported().isDone());
                return null;
            }
        }, clock);
        Pending pending = new Pending();
        observed.set(watching.started(pending, orders, Kind.READ, OWNER, WAIT_NANOS, clock.nanoTime()));

        pending.result.complete(true);

        assertThat(callerToldFirst.get()).isFalse();
        assertThat(observed.get().reported()).isCompletedWithValue(true);
    }

    @Test
    void aLocalHandOffIsToldAsSuch() {
        Pending pending = new Pending();
        pending.handedOver = true;
        start(pending, WAIT_NANOS);

        pending.result.complete(true);

        assertThat(observer.onlyEnd().localHandOff()).isTrue();
    }

    @Test
    void aSingleAttemptThatFindsTheLockHeldIsBusyNotTimedOut() {
        Pending pending = new Pending();
        start(pending, 0);

        pending.result.complete(false);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.BUSY);
        assertThat(observing.holds()).isZero();
    }

    @Test
    void aWaitThatRanOutIsTimedOut() {
        Pending pending = new Pending();
        start(pending, WAIT_NANOS);
        clock.advance(5_000);

        pending.result.complete(false);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(observer.onlyEnd().waitNanos()).isEqualTo(WAIT_NANOS);
    }

    @Test
    void anAcquisitionThatFailedIsToldFailedStartsNoHoldAndReachesTheCallerAsItWas() {
        Pending pending = new Pending();
        ObservedAcquire observed = start(pending, WAIT_NANOS);
        RedisUnavailableException down = new RedisUnavailableException("down", null);

        pending.result.completeExceptionally(down);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.FAILED);
        assertThat(observing.holds()).isZero();
        assertThat(observed.reported()).isCompletedExceptionally();
        assertThat(causeOf(observed.reported())).isSameAs(down);
    }

    @Test
    void aCancelledAcquisitionIsToldCancelled() {
        Pending pending = new Pending();
        ObservedAcquire observed = start(pending, WAIT_NANOS);

        observed.result().cancel(false);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.CANCELLED);
    }

    @Test
    void anAcquisitionEndedByACancellationFromBelowIsToldCancelled() {
        Pending pending = new Pending();
        start(pending, WAIT_NANOS);

        pending.result.completeExceptionally(new CompletionException(new CancellationException("queue closed")));

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.CANCELLED);
    }

    @Test
    void aCancelMarkedByTheWaitingThreadIsToldAsMarked() {
        Pending pending = new Pending();
        ObservedAcquire observed = start(pending, WAIT_NANOS);

        observed.mark(Outcome.INTERRUPTED);
        observed.result().cancel(false);

        assertThat(observer.onlyEnd().outcome()).isEqualTo(Outcome.INTERRUPTED);
    }

    @Test
    void theObservedAcquisitionSharesTheFuturesAndAnswersOfTheOneItWatches() {
        Pending pending = new Pending();
        pending.handedOver = true;
        pending.unanswered = new RedisUnavailableException("no answer", null);
        ObservedAcquire observed = start(pending, WAIT_NANOS);

        assertThat(observed.result()).isSameAs(pending.result);
        assertThat(observed.settled()).isSameAs(pending.settled);
        assertThat(observed.token()).isEqualTo(41);
        assertThat(observed.lastUnanswered()).isSameAs(pending.unanswered);
        assertThat(observed.handedOver()).isTrue();
    }

    // ---- holds

    @Test
    void aReleaseEndsTheHoldWithItsHeldTimeOnTheEngineClockAndItsContext() {
        acquire(OWNER);
        clock.advance(400);

        CompletableFuture<ReleaseOutcome> reply = observing.release(
                CompletableFuture.completedFuture(ReleaseOutcome.RELEASED), orders, OWNER);

        assertThat(reply).isCompletedWithValue(ReleaseOutcome.RELEASED);
        assertThat(observer.onlyRelease()).isEqualTo(
                new HoldEnd("orders", Kind.READ, OWNER, TimeUnit.MILLISECONDS.toNanos(400), false));
        assertThat(observer.released.get(0).holdContext()).isEqualTo("hold-of-acquisition-1");
        assertThat(observing.holds()).isZero();
    }

    @Test
    void aReleaseThatFoundTheHoldGoneIsToldAsLapsed() {
        acquire(OWNER);

        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.NOT_HELD), orders, OWNER);

        assertThat(observer.onlyRelease().lapsed()).isTrue();
    }

    @Test
    void aReleaseWhoseReplyWasLostIsToldAsLapsedAndStillFailsForTheCaller() {
        acquire(OWNER);
        RedisUnavailableException lost = new RedisUnavailableException("no reply", null);

        CompletableFuture<ReleaseOutcome> reply = observing.release(CompletableFuture.failedFuture(lost), orders, OWNER);

        assertThat(observer.onlyRelease().lapsed()).isTrue();
        assertThat(causeOf(reply)).isSameAs(lost);
    }

    @Test
    void aReleaseThatLeavesTheLockHeldEndsNoHold() {
        acquire(OWNER);

        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.STILL_HELD), orders, OWNER);

        assertThat(observer.released).isEmpty();
        assertThat(observing.holds()).isOne();
    }

    @Test
    void aReleaseByAnOwnerThatHeldNothingTellsNothing() {
        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.RELEASED), orders, OWNER);

        assertThat(observer.released).isEmpty();
    }

    @Test
    void aReentryIsToldAsSuchAndTheHoldKeepsItsFirstStartAndContext() {
        acquire(OWNER);
        clock.advance(100);
        acquire(OWNER);
        clock.advance(100);

        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.RELEASED), orders, OWNER);

        assertThat(observer.ended).extracting(ended -> ended.end().reentry()).containsExactly(false, true);
        assertThat(observer.onlyRelease().heldNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(observer.released.get(0).holdContext()).isEqualTo("hold-of-acquisition-1");
    }

    @Test
    void holdsOfDifferentOwnersAreKeptApart() {
        acquire(OWNER);
        acquire(OWNER + 1);

        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.RELEASED), orders, OWNER + 1);

        assertThat(observer.onlyRelease().threadId()).isEqualTo(OWNER + 1);
        assertThat(observer.ended).extracting(ended -> ended.end().reentry()).containsExactly(false, false);
        assertThat(observing.holds()).isOne();
    }

    @Test
    void aCompositeHoldEndsWithTheLastUnlockOfItsReentries() {
        acquireComposite();
        acquireComposite();

        observing.releaseComposite(CompletableFuture.completedFuture(null), "composite:multi[a,b]", OWNER);
        assertThat(observer.released).as("one re-entry is left").isEmpty();
        observing.releaseComposite(CompletableFuture.completedFuture(null), "composite:multi[a,b]", OWNER);

        assertThat(observer.onlyRelease()).isEqualTo(new HoldEnd("multi[a,b]", Kind.MULTI, OWNER, 0, false));
    }

    @Test
    void aFailedCompositeUnlockEndsTheHoldAsLapsedWhateverItsReentries() {
        acquireComposite();
        acquireComposite();

        observing.releaseComposite(CompletableFuture.failedFuture(new IllegalMonitorStateException("not held")),
                "composite:multi[a,b]", OWNER);

        assertThat(observer.onlyRelease().lapsed()).isTrue();
        assertThat(observing.holds()).isZero();
    }

    // ---- the watchdog's findings

    @Test
    void aLostLeaseIsToldWithItsHoldsNameKindAndContextAndEndsTheHold() {
        acquire(OWNER);

        observing.leaseLost("orders#read", OWNER);

        assertThat(observer.lost).containsExactly(new Lost("orders", Kind.READ, OWNER, "hold-of-acquisition-1"));
        observing.release(CompletableFuture.completedFuture(ReleaseOutcome.NOT_HELD), orders, OWNER);
        assertThat(observer.released).as("the hold already ended").isEmpty();
    }

    @Test
    void aLostLeaseOfAHoldThisClientDidNotSeeStartIsToldUnderItsKey() {
        observing.leaseLost("orders#read", OWNER);

        assertThat(observer.lost).containsExactly(new Lost("orders#read", Kind.LOCK, OWNER, null));
    }

    @Test
    void renewalsAreToldWithHowManyOwnersTheyCoveredAndEmptyOnesAreNot() {
        observing.renewed(3, RenewalOutcome.RENEWED);
        observing.renewed(0, RenewalOutcome.ERROR);
        observing.renewed(1, RenewalOutcome.LOST);

        assertThat(observer.renewed).containsExactly(new Renewed(3, RenewalOutcome.RENEWED),
                new Renewed(1, RenewalOutcome.LOST));
    }

    @Test
    void anObserverThatThrowsChangesNothingForTheLock() {
        Observing throwing = new Observing(new LockObserver() {
            @Override
            public Object acquisitionStarted(String lockName, Kind kind, long threadId) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public Object acquisitionEnded(AcquisitionEnd end, Object context) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public void released(HoldEnd end, Object holdContext) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public void leasesRenewed(int owners, RenewalOutcome outcome) {
                throw new IllegalStateException("broken observer");
            }

            @Override
            public void leaseLost(String lockName, Kind kind, long threadId, Object holdContext) {
                throw new IllegalStateException("broken observer");
            }
        }, clock);
        Pending pending = new Pending();
        ObservedAcquire observed = throwing.started(pending, orders, Kind.READ, OWNER, WAIT_NANOS, clock.nanoTime());

        pending.result.complete(true);

        assertThat(observed.reported()).isCompletedWithValue(true);
        assertThat(throwing.holds()).as("the hold is kept all the same").isOne();
        assertThat(throwing.release(CompletableFuture.completedFuture(ReleaseOutcome.RELEASED), orders, OWNER))
                .isCompletedWithValue(ReleaseOutcome.RELEASED);
        assertThatCode(() -> {
            throwing.renewed(1, RenewalOutcome.RENEWED);
            throwing.leaseLost("orders#read", OWNER);
        }).doesNotThrowAnyException();
    }

    // ---- helpers

    private ObservedAcquire start(Pending pending, long waitNanos) {
        return observing.started(pending, orders, Kind.READ, OWNER, waitNanos, clock.nanoTime());
    }

    /** One acquisition of {@code owner} that Redis granted. */
    private void acquire(long owner) {
        Pending pending = new Pending();
        observing.started(pending, orders, Kind.READ, owner, WAIT_NANOS, clock.nanoTime());
        pending.result.complete(true);
    }

    private void acquireComposite() {
        Pending pending = new Pending();
        observing.started(pending, "multi[a,b]", "composite:multi[a,b]", Kind.MULTI, OWNER, WAIT_NANOS,
                clock.nanoTime());
        pending.result.complete(true);
    }

    private static Throwable causeOf(CompletableFuture<?> future) {
        try {
            future.getNow(null);
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("not failed: " + future);
    }

    /** A protocol that knows its name and local key and nothing else. */
    private static LockProtocol protocol(String name, String localKey) {
        return (LockProtocol) Proxy.newProxyInstance(LockProtocol.class.getClassLoader(),
                new Class<?>[] {LockProtocol.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> name;
                    case "localKey" -> localKey;
                    case "toString" -> "protocol " + name;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** An acquisition the test completes. */
    private static final class Pending implements PendingAcquire {
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        boolean handedOver;
        Throwable unanswered;

        @Override
        public CompletableFuture<Boolean> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> settled() {
            return settled;
        }

        @Override
        public boolean handedOver() {
            return handedOver;
        }

        @Override
        public long token() {
            return 41;
        }

        @Override
        public Throwable lastUnanswered() {
            return unanswered;
        }
    }
}
