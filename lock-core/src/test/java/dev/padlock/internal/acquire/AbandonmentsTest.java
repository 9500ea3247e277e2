package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisCommandException;
import dev.padlock.internal.base.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Give-backs of claims whose caller gave up on them unanswered: sent at once, retried on the
 * client's timer with back-off while Redis does not answer, until the claim's lease would have
 * ended by itself; the same owner's next acquisition waits for them.
 */
class AbandonmentsTest {
    private static final long LEASE = 5_000;
    private static final long COMMAND_TIMEOUT = 1_000;

    private final ManualTimer timer = new ManualTimer();
    private final RecordingProtocol lock = new RecordingProtocol("orders").claims();
    private final Abandonments abandonments = new Abandonments(timer, timer, COMMAND_TIMEOUT);

    @Test
    void aGiveBackIsSentAtOnceAndHoldsTheOwnerBackUntilRedisAnswers() {
        abandonments.abandon(lock, 1, LEASE);

        RecordingProtocol.Call giveBack = lock.next("abandon");
        CompletableFuture<Void> pending = abandonments.pending(lock, 1);
        assertThat(pending).isNotDone();
        giveBack.answer(true);

        assertThat(pending).isDone();
        assertThat(abandonments.pending(lock, 1)).isNull();
        assertThat(abandonments.size()).isZero();
    }

    @Test
    void aGiveBackHoldsBackOnlyItsOwnOwnerOfItsOwnLock() {
        abandonments.abandon(lock, 1, LEASE);

        assertThat(abandonments.pending(lock, 2)).isNull();
        assertThat(abandonments.pending(new RecordingProtocol("invoices").claims(), 1)).isNull();
    }

    @Test
    void aSecondGiveBackOfTheSameOwnerSendsNothingMore() {
        abandonments.abandon(lock, 1, LEASE);
        abandonments.abandon(lock, 1, LEASE);

        lock.next("abandon");
        assertThat(lock.calls()).as("one give-back removes every hold the owner's claims left").isEmpty();
    }

    @Test
    void aGiveBackIsRetriedOnTheTimerWithBackOffWhileRedisDoesNotAnswer() {
        abandonments.abandon(lock, 1, LEASE);

        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            lock.next("abandon").lose();
            pauses.add(millisUntilSent(1_000));
        }

        assertThat(pauses).containsExactly(10L, 20L, 40L, 80L, 160L, 320L, 500L, 500L);
        assertThat(abandonments.pending(lock, 1)).isNotDone();
    }

    @Test
    void retriesStopOnceTheClaimsLeaseWouldHaveEndedByItself() {
        abandonments.abandon(lock, 1, LEASE);
        CompletableFuture<Void> pending = abandonments.pending(lock, 1);
        long giveUpAfter = LEASE + 2 * COMMAND_TIMEOUT;

        long elapsed = 0;
        long lastSentAt = 0;
        while (!pending.isDone()) {
            lock.next("abandon").lose();
            long waited = millisUntilSent(1_000);
            if (waited >= 0) {
                elapsed += waited;
                lastSentAt = elapsed;
            }
        }

        assertThat(lastSentAt).as("the last retry was due before the lease would have ended")
                .isLessThan(giveUpAfter + 500).isGreaterThanOrEqualTo(giveUpAfter);
        assertThat(timer.pending()).as("no retry left scheduled").isZero();
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void anErrorAnswerEndsTheGiveBackWithoutRetrying() {
        abandonments.abandon(lock, 1, LEASE);

        lock.next("abandon").fail(new RedisCommandException("NOSCRIPT", null));

        assertThat(abandonments.pending(lock, 1)).isNull();
        timer.advance(1_000);
        assertThat(lock.calls()).isEmpty();
    }

    @Test
    void aStoppedTimerLetsTheOwnerGo() {
        abandonments.abandon(lock, 1, LEASE);
        CompletableFuture<Void> pending = abandonments.pending(lock, 1);
        timer.stop(); // the client is closing

        lock.next("abandon").lose();

        assertThat(pending).isDone();
    }

    @Test
    void closingLetsEveryWaitingOwnerGo() {
        abandonments.abandon(lock, 1, LEASE);
        abandonments.abandon(lock, 2, LEASE);
        CompletableFuture<Void> first = abandonments.pending(lock, 1);
        CompletableFuture<Void> second = abandonments.pending(lock, 2);

        abandonments.close();

        assertThat(first).isDone();
        assertThat(second).isDone();
        assertThat(abandonments.size()).isZero();
    }

    private long millisUntilSent(long maxMillis) {
        for (long elapsed = 0; elapsed <= maxMillis; elapsed++) {
            if (lock.sent()) {
                return elapsed;
            }
            timer.advance(1);
        }
        return -1;
    }
}
