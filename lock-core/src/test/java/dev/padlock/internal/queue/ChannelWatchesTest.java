package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import dev.padlock.internal.base.WaitBudget;
import dev.padlock.internal.lease.LeaseMillis;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which channels a queue watches while owners queue, and what a message there does. */
class ChannelWatchesTest {
    private final ManualTimer timer = new ManualTimer();
    private final HandFiredChannels channels = new HandFiredChannels();
    private final AtomicInteger probes = new AtomicInteger();
    private final ChannelWatches watches = new ChannelWatches(channels, probes::incrementAndGet);
    private final RecordingLock plain = new RecordingLock("orders:1");
    private final RecordingLock granting = new RecordingLock("orders:2", true);

    private Ticket waiter(RecordingLock kind, boolean spin, long owner) {
        return new Ticket(kind, spin, owner, LeaseMillis.WATCHDOG, 30_000, WaitBudget.of(WaitBudget.FOREVER, timer), owner);
    }

    @Test
    void aQueuedPubSubWaiterWatchesTheUnlockChannel() {
        watches.watchFor(waiter(plain, false, 1));

        assertThat(channels.watchedChannels()).containsExactly("channel");
    }

    @Test
    void aQueuedSpinWaiterWatchesNoChannel() {
        watches.watchFor(waiter(granting, true, 1));

        assertThat(channels.watchedChannels()).isEmpty();
    }

    @Test
    void aWaiterOfAKindThatGrantsAlsoWatchesTheGrantChannel() {
        watches.watchFor(waiter(granting, false, 1));

        assertThat(channels.watchedChannels()).containsExactly("channel", "grants");
    }

    @Test
    void waitersShareOneWatchOfEachChannel() {
        watches.watchFor(waiter(granting, false, 1));
        watches.watchFor(waiter(granting, false, 2));
        watches.watchFor(waiter(plain, false, 3));

        assertThat(channels.watchedChannels()).containsExactly("channel", "grants");
    }

    @Test
    void anUnlockMessageOrResubscriptionProbesTheQueue() {
        watches.watchFor(waiter(plain, false, 1));

        channels.fire();

        assertThat(probes).hasValue(1);
    }

    @Test
    void closeGivesBothWatchesBackAndTheNextWaiterTakesThemAgain() {
        watches.watchFor(waiter(granting, false, 1));

        watches.close();
        assertThat(channels.watchedChannels()).isEmpty();
        channels.fire();
        assertThat(probes).as("no longer listening").hasValue(0);

        watches.watchFor(waiter(granting, false, 2));
        assertThat(channels.watchedChannels()).containsExactly("channel", "grants");
    }
}
