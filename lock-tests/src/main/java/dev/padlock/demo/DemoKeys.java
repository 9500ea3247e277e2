package dev.padlock.demo;

/** The names the demo uses on Redis. */
final class DemoKeys {

    /** The one lock every worker thread contends on. */
    static final String LOCK = "padlock-demo:lock";
    /** The counter incremented, non-atomically, inside the lock. */
    static final String COUNTER = "padlock-demo:counter";
    /** The epoch microseconds at which the last holder was about to unlock. */
    static final String RELEASED_AT = "padlock-demo:released-at";

    private DemoKeys() {
    }
}
