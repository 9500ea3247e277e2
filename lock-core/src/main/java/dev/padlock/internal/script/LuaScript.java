package dev.padlock.internal.script;

import dev.padlock.spi.Script;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts of the {@code lock-lua} jar, each read once from
 * {@code dev/padlock/lua/<file>.lua} with its SHA1 computed here, so that the first call can
 * already be an {@code EVALSHA}. Each file's header documents its KEYS, ARGV and result.
 */
public enum LuaScript {
    LOCK_ACQUIRE("lock_acquire"),
    LOCK_RELEASE("lock_release"),
    LOCK_RENEW("lock_renew"),
    LOCK_FORCE_RELEASE("lock_force_release"),
    LOCK_HANDOFF("lock_handoff"),
    LOCK_CLAIM("lock_claim"),
    LOCK_ABANDON("lock_abandon"),
    LOCK_LEAVE("lock_leave"),
    LOCK_SINCE("lock_since"),
    MULTI_ACQUIRE("multi_acquire"),
    MULTI_RELEASE("multi_release"),
    FAIR_ACQUIRE("fair_acquire"),
    FAIR_RELEASE("fair_release"),
    FAIR_LEAVE("fair_leave"),
    FAIR_FORCE_RELEASE("fair_force_release"),
    FAIR_SETTLE("fair_settle"),
    RW_READ_ACQUIRE("rw_read_acquire"),
    RW_READ_RELEASE("rw_read_release"),
    RW_READ_RENEW("rw_read_renew"),
    RW_WRITE_ACQUIRE("rw_write_acquire"),
    RW_WRITE_RELEASE("rw_write_release"),
    RW_WRITE_LEAVE("rw_write_leave"),
    RW_READ_LEAVE("rw_read_leave"),
    RW_FORCE_RELEASE("rw_force_release"),
    RW_READ_LOCKED("rw_read_locked"),
    FENCED_ACQUIRE("fenced_acquire"),
    FENCED_TOKEN("fenced_token"),
    CLIENT_REGISTER("client_register"),
    SEMAPHORE_ACQUIRE("semaphore_acquire"),
    SEMAPHORE_RELEASE("semaphore_release"),
    SEMAPHORE_SET("semaphore_set"),
    SEMAPHORE_ADD("semaphore_add"),
    SEMAPHORE_DRAIN("semaphore_drain"),
    PERMIT_ACQUIRE("permit_acquire"),
    PERMIT_RELEASE("permit_release"),
    PERMIT_RENEW("permit_renew"),
    PERMIT_AVAILABLE("permit_available");

    private final Script script;
    private final byte[] sha1Bytes;

    LuaScript(String file) {
        this.script = Script.load(LuaScript.class, "/dev/padlock/lua/" + file + ".lua");
        this.sha1Bytes = script.sha1().getBytes(StandardCharsets.US_ASCII);
    }

    /** The file name without {@code .lua}; used in error messages. */
    public String file() {
        return script.name();
    }

    public String body() {
        return script.body();
    }

    public String sha1() {
        return script.sha1();
    }

    /** {@link #sha1()} as the bytes {@code EVALSHA} sends; not to be changed. */
    byte[] sha1Bytes() {
        return sha1Bytes;
    }

    /** This script as the SPI's {@link Script}. */
    public Script script() {
        return script;
    }
}
