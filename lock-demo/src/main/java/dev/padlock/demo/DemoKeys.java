package dev.padlock.demo;

import java.util.List;

/** The names the demo uses on Redis. */
final class DemoKeys {

    /** The one lock every worker thread contends on (on each server, for the red lock). */
    static final String LOCK = "padlock-demo:lock";
    /** The counter incremented, non-atomically, inside the lock. */
    static final String COUNTER = "padlock-demo:counter";
    /** The epoch microseconds at which the last holder was about to unlock. */
    static final String RELEASED_AT = "padlock-demo:released-at";
    /** The largest fencing token written so far by a holder of the fenced lock. */
    static final String TOKEN = COUNTER + ":token";
    /** The demo's own keys: deleted before and after a run. */
    static final String[] BOOKKEEPING = {COUNTER, RELEASED_AT, TOKEN};
    /** Every key a lock of the demo writes contains this (the lock names, and e.g. a fair lock's queue). */
    static final String LOCK_KEY_PATTERN = "*" + LOCK + "*";
    /** The fenced lock's token counter, which outlives the lock by design (see {@code RFencedLock}). */
    static final String FENCING_COUNTER = "redisson_lock_token:{" + LOCK + "}";

    private DemoKeys() {
    }

    /** The names of the locks {@code kind} takes on each server: three for the multi lock, else one. */
    static List<String> lockNames(DemoKind kind) {
        return kind == DemoKind.MULTI ? List.of(LOCK + ":a", LOCK + ":b", LOCK + ":c") : List.of(LOCK);
    }
}
