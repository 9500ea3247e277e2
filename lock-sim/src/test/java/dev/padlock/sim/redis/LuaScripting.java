package dev.padlock.sim.redis;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * One server's script cache (SCRIPT LOAD, EXISTS, FLUSH; EVAL loads too) and the runs of its
 * scripts on luaj, with Redis's error replies.
 *
 * <p>Implementation notes. A body is compiled once per JVM and kept by SHA1 (luaj prototypes are
 * immutable, so every model shares them); which scripts a server has loaded is its own. Each run
 * gets a fresh global table holding KEYS and ARGV, whose misses fall through to the server's
 * libraries ({@link LuaBridge}), so a script's globals never outlive its run. An uncaught error
 * becomes the reply Redis gives: on 7 an error raised by {@code redis.call} keeps its code
 * ({@code "WRONGTYPE ... script: f_<sha>, on @user_script:<line>."}) and any other is
 * {@code "ERR user_script:<line>: <message> script: ..."}; on 6 every one is
 * {@code "ERR Error running script (call to f_<sha>): @user_script:<line>: <message>"}.
 *
 * <p>With {@link ModelRedis#refuseUndeclaredKeys} on, a call that names a key outside the run's
 * KEYS (and outside {@link DeclaredKeys}'s exceptions for that lock-lua script) ends the script with
 * Dragonfly's refusal, whatever {@code pcall} it is in, and is reported to the listener.
 */
final class LuaScripting {

    private static final Map<String, Prototype> COMPILED = new ConcurrentHashMap<>();
    /** The lock-lua scripts' names by SHA1, read once. */
    private static final Map<String, String> LOCK_LUA = new ConcurrentHashMap<>();
    private static final Pattern FILELINE = Pattern.compile("^@?user_script:(\\d+) (.*)$", Pattern.DOTALL);

    private final ModelRedis redis;
    /** SHA1 to body of the scripts this server has loaded. */
    private final Map<String, String> scripts = new HashMap<>();
    /** The libraries and {@code redis}, made at the first run. */
    private LuaTable globals;
    /** The script running now; null between runs. */
    private Run running;

    /** A run in progress: the script's lock-lua name (else {@code f_<sha>}), its KEYS and ARGV. */
    private record Run(String script, List<String> keys, List<String> args) {
    }

    /** The scripting of {@code redis}, with the scripts {@code loadedFrom} has loaded (null: none). */
    LuaScripting(ModelRedis redis, LuaScripting loadedFrom) {
        this.redis = redis;
        if (loadedFrom != null) {
            scripts.putAll(loadedFrom.scripts);
        }
    }

    static String sha1Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing", e);
        }
    }

    /** Compiles and keeps {@code body}; returns its SHA1. */
    String load(String body) {
        String sha = sha1Hex(body);
        compile(sha, body);
        scripts.put(sha, body);
        return sha;
    }

    boolean exists(String sha) {
        return scripts.containsKey(sha);
    }

    void flush() {
        scripts.clear();
    }

    /** Runs the loaded script {@code sha}; NOSCRIPT when it is not loaded. */
    Object run(String sha, List<String> keys, List<String> args) {
        String body = scripts.get(sha);
        if (body == null) {
            throw new ModelRedisException(ModelRedisException.NOSCRIPT);
        }
        Prototype prototype = compile(sha, body);
        if (globals == null) {
            globals = LuaBridge.globals(redis);
        }
        LuaTable env = new LuaTable();
        env.set("KEYS", LuaBridge.array(keys));
        env.set("ARGV", LuaBridge.array(args));
        LuaTable meta = new LuaTable();
        meta.set(LuaValue.INDEX, globals);
        env.setmetatable(meta);
        LuaValue result;
        running = new Run(name(sha), keys, args);
        try {
            result = new LuaClosure(prototype, env).call();
        } catch (LuaBridge.ModelBug bug) {
            throw bug.getCause();
        } catch (LuaBridge.Refusal refusal) {
            throw refusal.getCause();
        } catch (LuaError e) {
            throw failure(sha, e);
        } catch (StackOverflowError e) {
            throw new ModelRedisException("ERR Error running script f_" + sha + ", stack overflow");
        } finally {
            running = null;
        }
        return LuaBridge.toRedis(result);
    }

    /**
     * Refuses {@code argv}, a call of the running script, when a strict server would: a key that is
     * not among its KEYS nor an exception of {@link DeclaredKeys}. Does nothing with the rule off.
     *
     * @throws LuaBridge.Refusal the refusal, which ends the script
     */
    void requireDeclared(List<String> argv) {
        Consumer<String> listener = redis.undeclaredKeyListener();
        Run run = running;
        if (listener == null || run == null) {
            return;
        }
        String key = DeclaredKeys.undeclared(run.script(), run.keys(), run.args(), argv);
        if (key != null) {
            listener.accept(run.script() + " called " + argv.get(0).toUpperCase(java.util.Locale.ROOT) + " on '" + key
                    + "', not among its KEYS " + run.keys());
            throw new LuaBridge.Refusal(new ModelRedisException("ERR Error running script (call to " + run.script()
                    + "): " + DeclaredKeys.REFUSAL + ", key: " + key));
        }
    }

    /** The lock-lua name of the script {@code sha}, else {@code f_<sha>}. */
    private static String name(String sha) {
        if (LOCK_LUA.isEmpty()) {
            LockLuaScripts.all().forEach((name, body) -> LOCK_LUA.put(sha1Hex(body), name));
        }
        return LOCK_LUA.getOrDefault(sha, "f_" + sha);
    }

    private static Prototype compile(String sha, String body) {
        try {
            return COMPILED.computeIfAbsent(sha, s -> {
                try {
                    return LuaC.instance.compile(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)),
                            "@user_script");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (LuaError e) {
            throw new ModelRedisException("ERR Error compiling script (new function): " + e.getMessage());
        }
    }

    private ModelRedisException failure(String sha, LuaError e) {
        LuaValue object = e.getMessageObject();
        String full = e.getMessage() == null ? "" : e.getMessage();
        Matcher m = FILELINE.matcher(full);
        String line = m.matches() ? m.group(1) : "0";
        String where = " script: f_" + sha + ", on @user_script:" + line + ".";
        boolean raised = object != null && object.istable() && object.get("err").isstring();
        if (redis.majorVersion() >= 7) {
            if (raised) {
                return new ModelRedisException(object.get("err").tojstring() + where);
            }
            String message = m.matches() ? "user_script:" + line + ": " + m.group(2) : full;
            return new ModelRedisException("ERR " + message + where);
        }
        String message = raised ? object.get("err").tojstring() : m.matches() ? m.group(2) : full;
        return new ModelRedisException("ERR Error running script (call to f_" + sha + "): @user_script:" + line
                + ": " + message);
    }
}
