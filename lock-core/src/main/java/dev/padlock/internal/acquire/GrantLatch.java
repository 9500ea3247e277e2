package dev.padlock.internal.acquire;

import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * Whether a grant message came for one acquisition, and what it did. A grant that confirms a hold
 * (the message came from the script call that put the owner's field in, and the publish counted
 * its listener) moves the latch from {@link State#RUNNING} to {@link State#GRANTED}, while the loop
 * still runs; the loop's next step then counts the owner as holding. When the loop ends, with the
 * lock or without it, the latch is {@link State#DONE} and later grants are not taken. A grant that
 * only wakes (see {@link dev.padlock.internal.protocol.Granting#grantMessageConfirms()}) sets a
 * wake-up request instead, which the next attempt answers.
 *
 * <p>Thread-safe: a grant message arrives on an I/O thread while the loop runs elsewhere.
 */
final class GrantLatch {

    /** Where the acquisition is, as far as grants go. */
    enum State {
        /** The loop runs and no grant came. */
        RUNNING,
        /** A grant came: the owner holds, and the loop's next step says so. */
        GRANTED,
        /** The loop is over: it holds, or it stopped without the lock. */
        DONE
    }

    /** An updater rather than an {@code AtomicReference}: one object less per acquisition. */
    private static final AtomicReferenceFieldUpdater<GrantLatch, State> STATE =
            AtomicReferenceFieldUpdater.newUpdater(GrantLatch.class, State.class, "state");
    private volatile State state = State.RUNNING;
    /** Whether the loop's hold came by a grant message rather than an attempt's reply. */
    private volatile boolean granted;
    /** A wake-only grant came that no attempt has answered yet. */
    private volatile boolean wakeRequested;

    /** A grant that confirms a hold: true when it is taken (the loop still runs and had none). */
    boolean grant() {
        return STATE.compareAndSet(this, State.RUNNING, State.GRANTED);
    }

    /** A grant that only wakes: the next attempt answers it. Whether the loop still runs. */
    boolean requestWake() {
        wakeRequested = true;
        return state == State.RUNNING;
    }

    /** A grant turned out not to hold (it came too late, and Redis no longer has the field): the loop runs on. */
    void revoke() {
        STATE.compareAndSet(this, State.GRANTED, State.RUNNING);
    }

    /** Whether a grant came that the loop has not taken yet. */
    boolean isGranted() {
        return state == State.GRANTED;
    }

    /** Whether a wait about to start should end at once: a grant to take, or a wake-up to answer. */
    boolean wakes() {
        return isGranted() || wakeRequested;
    }

    boolean wakeRequested() {
        return wakeRequested;
    }

    /** An attempt is being sent: it answers any wake-up requested before it. */
    void attempting() {
        wakeRequested = false;
    }

    /** The owner holds: the loop is over. Whether the hold came by a grant message. */
    boolean held() {
        State before = STATE.getAndSet(this, State.DONE);
        granted = before == State.GRANTED;
        return granted;
    }

    /**
     * The loop stops without the lock, unless a grant came first: false then (the owner holds, and
     * the stop must turn round before its caller is told otherwise).
     */
    boolean stop() {
        while (true) {
            State now = state;
            switch (now) {
                case RUNNING:
                    if (STATE.compareAndSet(this, State.RUNNING, State.DONE)) {
                        return true;
                    }
                    break;
                case GRANTED:
                    return false;
                case DONE:
                    return true;
                default:
                    throw new IllegalStateException("unknown state " + now);
            }
        }
    }

    /** Ends the latch of an acquisition that never began: grants are not taken any more. */
    void end() {
        state = State.DONE;
    }

    /** Whether the hold came by a grant message; read once the owner holds. */
    boolean granted() {
        return granted;
    }
}
