package dev.padlock.internal;

/**
 * A message on one of this client's grant channels: {@code <threadId>:<nonce>:<name>} from
 * {@code lock_release}, or the same after {@code f:} from {@code fair_release} and {@code fair_acquire}.
 *
 * @param fair whether it grants a fair lock
 * @param owner the thread id the lock went to
 * @param nonce the nonce of the place it answers
 * @param name the lock's name
 */
record GrantMessage(boolean fair, long owner, long nonce, String name) {
    private static final String FAIR_PREFIX = "f:";

    /** Reads {@code message}; null when it is malformed. */
    static GrantMessage parse(String message) {
        boolean fair = message.startsWith(FAIR_PREFIX);
        int start = fair ? FAIR_PREFIX.length() : 0;
        int first = message.indexOf(':', start);
        int second = first < 0 ? -1 : message.indexOf(':', first + 1);
        if (second < 0) {
            return null;
        }
        try {
            return new GrantMessage(fair, Long.parseLong(message.substring(start, first)),
                    Long.parseLong(message.substring(first + 1, second)), message.substring(second + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
