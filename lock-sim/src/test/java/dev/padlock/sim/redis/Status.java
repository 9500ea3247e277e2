package dev.padlock.sim.redis;

import static java.util.Objects.requireNonNull;

/**
 * A status reply of {@link ModelRedis}, such as {@code OK} or {@code PONG} (RESP2's {@code +}),
 * apart from a bulk string; in a script it is the table {@code {ok = text}}.
 *
 * @param text the reply without the {@code +}, never null
 */
public record Status(String text) {

    /** The {@code OK} reply. */
    public static final Status OK = new Status("OK");

    public Status {
        requireNonNull(text, "text");
    }
}
