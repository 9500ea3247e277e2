package dev.padlock.internal.composite;

/**
 * A component lock that tells whether its owner was told it lost the lock since a moment. A
 * composite acquisition does not report held on a component whose loss was told while the
 * acquisition ran: that loss went to the owner before it heard "held", and nothing renews the
 * component any more.
 */
public interface ToldLosses {

    /** Whether {@code threadId} was told it lost this lock at or after {@code sinceNanos}, on the client's clock. */
    boolean toldLostSince(long threadId, long sinceNanos);
}
