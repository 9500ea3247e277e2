package dev.padlock.sim.redis;

/**
 * An error reply of {@link ModelRedis}: {@link #getMessage()} is the full Redis error text with its
 * code, e.g. {@code "NOSCRIPT No matching script. Please use EVAL."} or
 * {@code "WRONGTYPE Operation against a key holding the wrong kind of value"}.
 */
public final class ModelRedisException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The reply to a command on a key of another type. */
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String SYNTAX = "ERR syntax error";
    static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";

    /** An error reply with this full text (code first). */
    public ModelRedisException(String text) {
        super(text, null, false, false);
    }

    /** The error code: the first word, e.g. {@code WRONGTYPE}. */
    public String code() {
        String text = getMessage();
        int space = text.indexOf(' ');
        return space < 0 ? text : text.substring(0, space);
    }

    static ModelRedisException wrongType() {
        return new ModelRedisException(WRONGTYPE);
    }

    static ModelRedisException notInteger() {
        return new ModelRedisException(NOT_INTEGER);
    }

    static ModelRedisException syntax() {
        return new ModelRedisException(SYNTAX);
    }
}
