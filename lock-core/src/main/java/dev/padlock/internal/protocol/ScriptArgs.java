package dev.padlock.internal.protocol;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Numbers as script arguments, without making a new string each call for the few a client sends
 * again and again (its leases, 0, a place's lifetime): a small table of the texts last made.
 */
final class ScriptArgs {
    private static final int SLOTS = 64;
    private static final AtomicReferenceArray<Text> RECENT = new AtomicReferenceArray<>(SLOTS);

    private record Text(long value, String text) {
    }

    private ScriptArgs() {
    }

    /** {@code Long.toString(value)}, from the table when it was made lately. */
    static String millis(long value) {
        int slot = Long.hashCode(value) & (SLOTS - 1);
        Text known = RECENT.get(slot);
        if (known != null && known.value() == value) {
            return known.text();
        }
        Text made = new Text(value, Long.toString(value));
        RECENT.set(slot, made);
        return made.text();
    }
}
