package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.protocol.GrantKind;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** One acquisition's channels: shared when confirmed, subscribed when not, parked on, given back. */
class SubscriptionsTest {
    private final ManualTimer timer = new ManualTimer();
    private final HandWakeUps wakeUps = new HandWakeUps(timer).confirmAtOnce(false);
    private final RecordingProtocol lock = new RecordingProtocol("orders").granting(GrantKind.FAIR, true);
    private final Subscriptions subscriptions = new Subscriptions(wakeUps, timer, lock, 1, true);

    @Test
    void onlySubscriptionsRedisConfirmedAlreadyAreShared() {
        wakeUps.alreadyConfirmed("unlock:orders");

        subscriptions.takeConfirmed();

        assertThat(subscriptions.hearsGrants()).isFalse();
        assertThat(subscriptions.complete()).as("the grant channel is missing").isFalse();
        assertThat(wakeUps.subscribed()).as("nothing sent").isEmpty();
    }

    @Test
    void subscribingConfirmsOnceRedisConfirmsEveryChannel() {
        CompletableFuture<Boolean> confirmed = subscriptions.subscribe(1_000);

        assertThat(wakeUps.subscribed()).containsExactly("unlock:orders", "grants:c");
        wakeUps.confirm("unlock:orders");
        assertThat(confirmed).as("the grant channel is not confirmed yet").isNotDone();
        wakeUps.confirm("grants:c");
        assertThat(confirmed).isCompletedWithValue(true);
        assertThat(subscriptions.complete()).isTrue();
    }

    @Test
    void aConfirmationThatDoesNotComeInTimeAnswersFalse() {
        CompletableFuture<Boolean> confirmed = subscriptions.subscribe(1_000);

        timer.advance(1_000);

        assertThat(confirmed).isCompletedWithValue(false);
    }

    @Test
    void aParkWhileTheUnlockChannelIsUnconfirmedLastsAtMostAHundredMillis() {
        subscriptions.subscribe(1_000);

        subscriptions.park(5_000);
        wakeUps.confirm("unlock:orders");
        subscriptions.park(5_000);

        assertThat(wakeUps.parks()).extracting(HandWakeUps.Park::millis).containsExactly(100L, 5_000L);
    }

    @Test
    void closingGivesEverySubscriptionBackOnce() {
        subscriptions.subscribe(1_000);

        subscriptions.close();
        subscriptions.close();

        assertThat(wakeUps.open()).isZero();
        assertThat(subscriptions.complete()).isFalse();
    }
}
