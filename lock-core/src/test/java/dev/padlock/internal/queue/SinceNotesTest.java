package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.protocol.LockProtocol.Release;
import dev.padlock.internal.protocol.LockProtocol.ReleaseOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When a holder's since is noted on Redis: once its hold has lasted a second, once per hold, again
 * after a note that failed, never for a hold released sooner, and with no round left on the timer
 * once nothing is due. A manual clock and timer, no Redis.
 */
class SinceNotesTest {
    private final QueueFixture f = new QueueFixture();
    private final SinceNotes notes = new SinceNotes(f.timer, f.queues);

    @AfterEach
    void close() {
        notes.close();
        f.close();
    }

    private void releases(long owner) {
        f.release(owner);
        f.lock.next("release", owner).answer(new Release(ReleaseOutcome.RELEASED, 0));
    }

    @Test
    void aHoldReleasedWithinTheDelayNotesNothing() {
        f.holds(1);
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS - 100);
        releases(1);
        f.timer.advance(10_000);
        f.lock.sentNothing();
        assertThat(notes.roundScheduled()).as("no round left on the timer").isFalse();
    }

    @Test
    void aHoldThatLastsIsNotedOnceWithHowLongItWasHeld() {
        f.holds(1);
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS);
        RecordingLock.Call note = f.lock.next("since", 1);
        assertThat(note.to).isEqualTo(SinceNotes.NOTE_AFTER_MILLIS);
        note.answer(true);
        f.timer.advance(60_000);
        f.lock.sentNothing();
        assertThat(notes.roundScheduled()).as("no round left once noted").isFalse();
    }

    @Test
    void aNoteThatFailedIsSentAgainWhileTheOwnerHolds() {
        f.holds(1);
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS);
        f.lock.next("since", 1).fail(new IllegalStateException("connection lost"));
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS);
        RecordingLock.Call again = f.lock.next("since", 1);
        assertThat(again.to).isEqualTo(2 * SinceNotes.NOTE_AFTER_MILLIS);
        again.answer(true);
        f.timer.advance(60_000);
        f.lock.sentNothing();
    }

    @Test
    void aNewHoldAfterAReleaseIsNotedForItsOwnTime() {
        f.holds(1);
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS);
        f.lock.next("since", 1).answer(true);
        releases(1);
        f.holds(2);
        f.timer.advance(SinceNotes.NOTE_AFTER_MILLIS);
        RecordingLock.Call note = f.lock.next("since", 2);
        assertThat(note.to).isEqualTo(SinceNotes.NOTE_AFTER_MILLIS);
    }

    @Test
    void aClosedClientRunsNoRound() {
        f.holds(1);
        notes.close();
        f.timer.advance(10_000);
        f.lock.sentNothing();
    }
}
