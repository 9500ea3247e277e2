package dev.padlock.internal.base;

/**
 * A lock whose blocking calls end by their wait plus twice its client's command timeout (the
 * contract's bound), for callers that wait on its futures from outside, as a lease's
 * {@code tryAcquire} does.
 */
public interface CallBound {

    /** Twice the command timeout, in nanoseconds: how long past its wait a call may last. */
    long graceNanos();

    /** Where its calls go, for messages. */
    String address();
}
