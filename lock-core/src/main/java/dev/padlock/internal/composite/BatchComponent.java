package dev.padlock.internal.composite;

import dev.padlock.LockObserver;
import dev.padlock.internal.acquire.AcquireContext;
import dev.padlock.internal.observe.Observing;
import dev.padlock.internal.protocol.LockProtocol;
import dev.padlock.internal.queue.LocalQueues;
import org.jspecify.annotations.Nullable;

/**
 * A component lock that can join a multi lock's one-call acquisition and release
 * ({@link MultiBatch}): a plain lock, with nothing of its own between its caller and its hash.
 */
public interface BatchComponent {

    /**
     * This lock's part in one call; null when it cannot join one: a spin, fenced, fair, read or
     * write lock, or one whose holds replicas must acknowledge.
     */
    @Nullable Member batchMember();

    /**
     * What a multi lock's one call needs of a component: its protocol (the plain lock's hash), its
     * client (two components join one call only when it is the same object), that client's local
     * queues, its observer (null when none is set) and the kind the observer knows it as.
     */
    record Member(LockProtocol protocol, AcquireContext client, LocalQueues queues, @Nullable Observing observing,
            LockObserver.Kind kind) {
    }
}
