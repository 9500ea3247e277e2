package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisUnavailableException;
import dev.padlock.internal.acquire.PendingAcquire;
import dev.padlock.internal.protocol.LockProtocol.Attempt;
import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import dev.padlock.internal.queue.RecordingLock.Call;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runner sends an uncontended acquisition's first attempt itself (see {@link TicketRunner}):
 * "acquired" needs no acquisition loop, and any other answer, a lost reply included, goes on in a
 * loop exactly as if the loop had sent it.
 */
class FirstAttemptTest {
    private static final long FOREVER = QueueFixture.FOREVER;

    private final QueueFixture f = new QueueFixture();
    private final RecordingLock lock = f.lock;

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void anUncontendedAcquisitionIsAnsweredByItsFirstAttemptWithoutALoop() {
        Ticket ticket = (Ticket) f.acquire(1, FOREVER);

        lock.next("claim", 1).answer(Attempt.ACQUIRED);

        assertThat(ticket.result()).isCompletedWithValue(true);
        assertThat(ticket.settled()).isDone();
        assertThat(ticket.running).as("no acquisition loop was made").isNull();
        assertThat(f.watchdog.isRenewing(lock, 1)).isTrue();
        f.release(1);
        lock.next("release", 1).answer(new Release(ReleaseOutcome.RELEASED, 0));
        assertThat(f.watchdog.isRenewing(lock, 1)).isFalse();
    }

    @Test
    void aFirstAttemptAnsweredAfterItsLeaseCouldHaveRunOutIsConfirmedAgainInTheLoop() {
        Ticket ticket = (Ticket) f.acquire(1, FOREVER);
        Call claim = lock.next("claim", 1);
        f.timer.advance(QueueFixture.LEASE); // the reply is read after a pause as long as the lease

        claim.answer(Attempt.ACQUIRED);

        assertThat(ticket.result()).as("a stale reply is not taken alone").isNotDone();
        assertThat(ticket.running).as("the loop confirms it").isNotNull();
        lock.next("renew", 1).answer(true);
        assertThat(ticket.result()).isCompletedWithValue(true);
        assertThat(f.watchdog.isRenewing(lock, 1)).isTrue();
    }

    @Test
    void aFirstAttemptThatFindsTheLockHeldWaitsInTheLoop() {
        Ticket ticket = (Ticket) f.acquire(1, FOREVER);

        lock.next("claim", 1).answer(Attempt.notAcquired(5_000));

        assertThat(ticket.running).as("the loop goes on from the first answer").isNotNull();
        lock.next("claim", 1).answer(Attempt.notAcquired(5_000)); // subscribed: it parks
        assertThat(f.channels.parkedCount()).isEqualTo(1);
        f.channels.fire();
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(ticket.result()).isCompletedWithValue(true);
    }

    @Test
    void aFirstAttemptWhoseReplyWasLostIsClaimedAgain() {
        PendingAcquire acquisition = f.acquire(1, FOREVER);

        lock.next("claim", 1).fail(new RedisUnavailableException("connection reset", null));
        lock.sentNothing();
        f.timer.advance(10); // the first pause before finding out

        lock.next("claim", 1).answer(Attempt.ACQUIRED); // a claim is idempotent: its answer is the outcome
        assertThat(acquisition.result()).isCompletedWithValue(true);
    }

    @Test
    void aFirstAttemptCancelledAndRefusedLeavesNothingWaiting() {
        PendingAcquire acquisition = f.acquire(1, FOREVER);
        var claim = lock.next("claim", 1);

        acquisition.result().cancel(false);
        claim.answer(Attempt.notAcquired(5_000));

        assertThat(acquisition.settled()).isDone();
        assertThat(f.channels.parkedCount()).isZero();
        lock.sentNothing();
        assertThat(f.queues.size()).isZero();
    }

    @Test
    void aClientThatSharesSubscriptionsLetsTheLoopSendTheFirstAttempt() {
        f.channels.subscribed = 1; // a lock contended recently: the loop may take a place with its first attempt
        Ticket ticket = (Ticket) f.acquire(1, FOREVER);

        assertThat(ticket.running).isNotNull();
        lock.next("claim", 1).answer(Attempt.ACQUIRED);
        assertThat(ticket.result()).isCompletedWithValue(true);
    }
}
