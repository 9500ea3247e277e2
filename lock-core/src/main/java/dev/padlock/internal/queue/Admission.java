package dev.padlock.internal.queue;

import java.util.concurrent.CompletableFuture;

/** How {@link LocalQueue#admit} let a ticket in: an {@link Entry}, or after the owner's earlier acquisitions. */
sealed interface Admission permits Admission.Entry, Admission.AfterEarlier {

    /** What {@link LocalQueue#enter} decided for a new acquisition. */
    enum Entry implements Admission { RUN, RUN_AS_HEAD, QUEUED }

    /** Enters after {@code earlier} ({@link Tickets#earlierOf}); {@code earlierWaits}: one waits for the lock. */
    record AfterEarlier(CompletableFuture<Void> earlier, boolean earlierWaits) implements Admission {
    }
}
