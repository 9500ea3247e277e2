package dev.padlock;

/**
 * An acquisition landed on the master, but fewer replicas than
 * {@link LockConfig.Builder#replicaAcknowledgement} asks for confirmed it within its timeout, so
 * it does not count: Padlock released it again before throwing. The message names the lock, the
 * address and how many replicas answered. Retrying is safe.
 */
public final class ReplicaAcknowledgementException extends PadlockException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with the given message.
     *
     * @param message what failed, naming the operation and the address
     */
    public ReplicaAcknowledgementException(String message) {
        super(message);
    }
}
