package dev.padlock.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Regression: an unlock message arriving while a waiter parked could be lost. wakeOne() found no
 * parked waiter and was about to leave a permit; the waiter parked and looked for a permit in
 * between, found none, and slept until the holder's lease ran out while the permit sat unused.
 * The queue below forces that interleaving: its poll(), finding nobody, lets a waiter park right
 * then, between wakeOne()'s poll and its permit.
 */
class LostWakeUpRaceTest {

    @Test
    void aWaiterThatParksBetweenTheWakeUpsPollAndItsPermitIsWoken() {
        AtomicReference<ChannelWaiters> channel = new AtomicReference<>();
        AtomicReference<CompletableFuture<Boolean>> parkedMeanwhile = new AtomicReference<>();
        ConcurrentLinkedQueue<CompletableFuture<Boolean>> queue = new ConcurrentLinkedQueue<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public CompletableFuture<Boolean> poll() {
                CompletableFuture<Boolean> head = super.poll();
                if (head == null && parkedMeanwhile.get() == null) {
                    parkedMeanwhile.set(channel.get().park(60_000, 0));
                }
                return head;
            }
        };
        channel.set(new ChannelWaiters("race", new ManualTimer(), queue));

        channel.get().wakeOne();

        assertThat(parkedMeanwhile.get()).as("parked between the poll and the permit").isNotNull();
        assertThat(parkedMeanwhile.get()).isCompletedWithValue(true);
    }

    @Test
    void aWakeUpWithNobodyParkedLeavesOnePermitForTheNextWaiter() {
        ChannelWaiters channel = new ChannelWaiters("permit", new ManualTimer());
        channel.wakeOne();
        channel.wakeOne();
        assertThat(channel.park(60_000, 0)).isCompletedWithValue(true);
        CompletableFuture<Boolean> second = channel.park(60_000, 0);
        assertThat(second).as("permits do not add up").isNotDone();
        channel.wakeOne();
        assertThat(second).isCompletedWithValue(true);
    }

    @Test
    void aBroadcastBeforeTheParkReachesEveryWaiterThatHadNotSeenIt() {
        ChannelWaiters channel = new ChannelWaiters("broadcast", new ManualTimer());
        long seen = channel.broadcasts();
        channel.wakeAll(); // nobody parked yet: both waiters are between their attempt and their park
        assertThat(channel.park(60_000, seen)).isCompletedWithValue(true);
        assertThat(channel.park(60_000, seen)).isCompletedWithValue(true);
        CompletableFuture<Boolean> caughtUp = channel.park(60_000, channel.broadcasts());
        assertThat(caughtUp).as("a waiter that saw the broadcast parks").isNotDone();
        channel.wakeAll();
        assertThat(caughtUp).isCompletedWithValue(true);
    }
}
