package dev.padlock.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ShedLock's locks as lock-shedlock's {@code PadlockLockProvider} writes them (see
 * docs/design/protocol.md, "ShedLock key"): the string key {@code <keyPrefix><name>} (default
 * prefix {@code shedlock:}), present while the job's lock is held, whose value is the hold's
 * token {@code <clientId>:<sequence>}, with PX = {@code lockAtMostFor} (after the job, what is
 * left of {@code lockAtLeastFor}).
 *
 * <p>The rule: a string key is a ShedLock lock when its value is {@code <clientId>:<digits>}, at
 * most {@value #MAX_TOKEN_LENGTH} characters, and its client id is UUID-shaped (every
 * {@code LockClient}'s id is a UUID) or has an entry in the registry. The prefix is the
 * provider's choice and is written nowhere, so the name does not matter. Padlock's other string
 * keys never have that shape (a place is {@code <threadId>:<lease>:<nonce>}, a read lease key
 * holds a number, the token counter an integer).
 */
final class ShedLocks {
    /** A token is a 36-character UUID, a colon and a sequence of at most 19 digits: 56; longer values are not tokens. */
    static final int MAX_TOKEN_LENGTH = 64;
    /** Why a ShedLock holder has no since. */
    static final String SINCE_NOTE = "ShedLock's key holds only its holder's token and its expiry";

    private static final Pattern TOKEN = Pattern.compile("([^:\\s]+):([0-9]{1,19})");
    private static final Pattern UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private ShedLocks() {
    }

    /** Whether {@code value} has a token's shape, before asking who its client is: a cheap first filter. */
    static boolean looksLikeToken(String value) {
        return value != null && value.length() <= MAX_TOKEN_LENGTH && TOKEN.matcher(value).matches();
    }

    /** The client id of the token {@code value}, null when {@code value} is not a ShedLock token. */
    static String clientIdOf(String value, Registry registry) {
        if (!looksLikeToken(value)) {
            return null;
        }
        Matcher token = TOKEN.matcher(value);
        token.matches();
        String clientId = token.group(1);
        return UUID.matcher(clientId).matches() || registry.entry(clientId) != null ? clientId : null;
    }

    /** The view of ShedLock lock {@code name}: one holder, holding once, with no waiters and no channel. */
    static LockView view(String name, String token, String clientId, long ttlMillis, long nowMillis, Registry registry) {
        LockView.Holder holder = new LockView.Holder(token, clientId, null, null, "holder", 1, null, SINCE_NOTE,
                ttlMillis, ttlMillis == -1 ? "no expiry" : "fixed", registry.entry(clientId));
        return new LockView(name, LockView.SHEDLOCK, null, ttlMillis, List.of(holder), null, List.of(), null, List.of(), 0,
                nowMillis);
    }
}
