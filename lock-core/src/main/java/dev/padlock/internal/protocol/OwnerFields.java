package dev.padlock.internal.protocol;

import dev.padlock.spi.LockKeys;

/**
 * A client's owner fields, {@code <clientId>:<threadId>}, made once per owner and shared by every
 * lock: a thread that holds many locks keeps one field for all of them, and a lock taken and
 * released in a loop makes none. A small direct-mapped cache (an owner's slot is its id modulo
 * {@value #SLOTS}); a field that another owner pushed out is made again.
 *
 * <p>Thread-safe without locks: a slot holds an immutable entry, read and replaced whole.
 */
public final class OwnerFields {
    private static final int SLOTS = 64;

    private final String clientId;
    private final Entry[] slots = new Entry[SLOTS];

    private record Entry(long threadId, String field) {
    }

    public OwnerFields(String clientId) {
        this.clientId = clientId;
    }

    /** {@code threadId}'s field in this client's locks. */
    public String of(long threadId) {
        int slot = (int) (threadId & (SLOTS - 1));
        Entry entry = slots[slot];
        if (entry == null || entry.threadId() != threadId) {
            entry = new Entry(threadId, LockKeys.ownerField(clientId, threadId));
            slots[slot] = entry;
        }
        return entry.field();
    }
}
