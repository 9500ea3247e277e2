package dev.padlock.internal.grant;

import static dev.padlock.internal.protocol.GrantKind.FAIR;
import static dev.padlock.internal.protocol.GrantKind.PLAIN;
import static dev.padlock.internal.protocol.GrantKind.READ;
import static dev.padlock.internal.protocol.GrantKind.WRITE;

import dev.padlock.internal.protocol.GrantKind;
import org.jspecify.annotations.Nullable;

/**
 * A message on one of this client's grant channels: {@code <threadId>:<nonce>:<name>} from
 * {@code lock_release}, or the same after a kind's prefix: {@code f:} from {@code fair_release}
 * and {@code fair_acquire}, {@code r:} (a read lock) from {@code rw_write_release}, {@code w:} (a write
 * lock) from {@code rw_read_release} and {@code rw_write_release}.
 *
 * @param kind a {@link GrantKind}: which kind of lock it grants
 * @param owner the thread id the lock went to
 * @param nonce the nonce of the place it answers
 * @param name the lock's name
 */
public record GrantMessage(char kind, long owner, long nonce, String name) {
    /** Reads {@code message}; null when it is malformed (no owner, nonce or name). */
    public static @Nullable GrantMessage parse(String message) {
        boolean prefixed = message.length() > 2 && message.charAt(1) == ':'
                && (message.charAt(0) == FAIR || message.charAt(0) == READ || message.charAt(0) == WRITE);
        char kind = prefixed ? message.charAt(0) : PLAIN;
        int start = prefixed ? 2 : 0;
        int first = message.indexOf(':', start);
        int second = first < 0 ? -1 : message.indexOf(':', first + 1);
        if (second < 0 || second == message.length() - 1) {
            return null; // no name: lock names are never empty
        }
        try {
            return new GrantMessage(kind, Long.parseLong(message.substring(start, first)),
                    Long.parseLong(message.substring(first + 1, second)), message.substring(second + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
