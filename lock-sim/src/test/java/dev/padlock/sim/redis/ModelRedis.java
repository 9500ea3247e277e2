package dev.padlock.sim.redis;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One Redis server, in memory, in virtual time: the commands Padlock's scripts and tests use, with
 * Redis's replies and errors, and Lua scripts run unchanged (on luaj). Single-threaded: not
 * thread-safe, and a listener may not call back into it while a command runs.
 *
 * <p>Replies are {@code Long} (integer), {@code String} (bulk), {@link Status}, {@code List<Object>}
 * (array, elements of the same types, null for nil) or null (nil); an error reply is thrown as
 * {@link ModelRedisException}. RESP2, as scripts and most clients see it: a nil bulk and a nil
 * array are both null.
 *
 * <p>Implementation notes. The clock is read once at the start of each {@link #execute} and
 * frozen for the whole command, a script's run included: Redis 7 freezes the time keys expire by
 * in a script, and the model freezes TIME too. A key is expired when {@code now > expireAt}
 * (db.c {@code keyIsExpired}): at {@code now == expireAt} it still exists with PTTL 0. Expired
 * keys go when looked up (lazy) or by {@link #expireDue()} (active). The major version (6 or 7)
 * decides what Redis 7 added that Padlock's scripts rely on: EXPIRE/PEXPIRE's NX/XX/GT/LT,
 * SPUBLISH, SET NX with GET, and the error texts of scripts.
 */
public final class ModelRedis {

    /** One delivery of a published message to one subscriber. */
    @FunctionalInterface
    public interface Delivery {
        void deliver(String subscriber, String channel, String message);
    }

    /** One PUBLISH or SPUBLISH: its channel, message and how many subscribers it reached. */
    public record Published(String channel, String message, long receivers) {
    }

    /**
     * A live key: {@code type} is {@code string}, {@code hash}, {@code list} or {@code zset};
     * {@code value} a {@code String}, a {@code Map<String,String>} in Redis's order, a
     * {@code List<String>}, or a {@code Map<String,Double>} by score then member (all unmodifiable);
     * {@code pttl} in ms, -1 without expiry.
     */
    public record Entry(String type, Object value, long pttl) {
    }

    private final LongSupplier clock;
    private final int majorVersion;
    private final Keyspace keyspace;
    private final PubSub pubSub;
    private final LuaScripting scripting;
    private long now;
    private long commandCount;
    private boolean running;
    /** Told of each key a script was refused (see {@link #refuseUndeclaredKeys}); null: the rule is off. */
    private Consumer<String> undeclaredKeys;

    /** A Redis 7 server on {@code nowMillis}, the virtual wall clock in epoch ms. */
    public ModelRedis(LongSupplier nowMillis) {
        this(nowMillis, 7);
    }

    /**
     * A server of {@code majorVersion} (6: as Redis 6.2, 7: as Redis 7.0) on {@code nowMillis}.
     *
     * @throws IllegalArgumentException for another version
     */
    public ModelRedis(LongSupplier nowMillis, int majorVersion) {
        this(nowMillis, majorVersion, new Keyspace(), new PubSub(), null, 0);
    }

    private ModelRedis(LongSupplier clock, int majorVersion, Keyspace keyspace, PubSub pubSub,
            LuaScripting scriptsFrom, long commandCount) {
        this.clock = requireNonNull(clock, "nowMillis");
        if (majorVersion != 6 && majorVersion != 7) {
            throw new IllegalArgumentException("majorVersion must be 6 or 7, got " + majorVersion);
        }
        this.majorVersion = majorVersion;
        this.keyspace = keyspace;
        this.pubSub = pubSub;
        this.scripting = new LuaScripting(this, scriptsFrom);
        this.commandCount = commandCount;
    }

    /** Runs one command (name case-insensitive) as a client connection would, and returns its reply. */
    public Object execute(String... command) {
        return execute(Arrays.asList(command));
    }

    /**
     * Runs one command as a client connection would, and returns its reply.
     *
     * @throws ModelRedisException the error reply
     * @throws IllegalArgumentException for an empty command
     * @throws IllegalStateException when called from a listener while a command runs
     */
    public Object execute(List<String> command) {
        List<String> argv = List.copyOf(command);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("command must have a name");
        }
        if (running) {
            throw new IllegalStateException("ModelRedis is not re-entrant: a command is running");
        }
        running = true;
        try {
            commandCount++;
            now = clock.getAsLong();
            return CommandTable.dispatch(this, argv, false);
        } finally {
            running = false;
        }
    }

    /** Subscribes {@code subscriber} (any id, such as a client's) to {@code channel}; a second time does nothing. */
    public void subscribe(String subscriber, String channel) {
        pubSub.subscribe(requireNonNull(subscriber, "subscriber"), requireNonNull(channel, "channel"));
    }

    public void unsubscribe(String subscriber, String channel) {
        pubSub.unsubscribe(requireNonNull(subscriber, "subscriber"), requireNonNull(channel, "channel"));
    }

    public void unsubscribeAll(String subscriber) {
        pubSub.unsubscribeAll(requireNonNull(subscriber, "subscriber"));
    }

    /**
     * Adds a listener called synchronously for each delivery a PUBLISH or SPUBLISH makes (from
     * scripts too), once per subscriber, in subscription order.
     */
    public void onPublish(Delivery listener) {
        pubSub.addListener(requireNonNull(listener, "listener"));
    }

    /**
     * From now on, refuses a script's call that names a key not among the script's KEYS, as a strict
     * server does (Dragonfly's default: "script tried accessing undeclared key"), except the keys
     * the lock-lua scripts that cannot declare them build (the list in {@link DeclaredKeys}). The
     * refusal ends the script with an error reply, whatever {@code pcall} the call is in (writes
     * before it stay, as on Dragonfly), and {@code listener} hears what was refused. Redis itself
     * does not refuse such keys: off by default, and in copies.
     */
    public void refuseUndeclaredKeys(Consumer<String> listener) {
        this.undeclaredKeys = requireNonNull(listener, "listener");
    }

    /** Every PUBLISH and SPUBLISH so far, in order. */
    public List<Published> published() {
        return pubSub.published();
    }

    /** FLUSHALL and SCRIPT FLUSH: a restart that lost its data; subscriptions are the caller's to drop. */
    public void restartEmpty() {
        keyspace.clear();
        scripting.flush();
    }

    /** The live keys at the clock's time now (expired ones left out), by name. */
    public SortedMap<String, Entry> snapshot() {
        return keyspace.snapshot(clock.getAsLong());
    }

    /** Drops every key whose expiry has passed at the clock's time now (Redis's active expiry). */
    public void expireDue() {
        keyspace.expireDue(clock.getAsLong());
    }

    /** How many commands {@link #execute} ran since the start (a script counts as one). */
    public long commandCount() {
        return commandCount;
    }

    /** The Redis major version this server behaves as: 6 or 7. */
    public int majorVersion() {
        return majorVersion;
    }

    /**
     * An independent copy on {@code nowMillis}: the same keys, loaded scripts, subscriptions,
     * publish log and command count; no listeners.
     */
    public ModelRedis copy(LongSupplier nowMillis) {
        return new ModelRedis(nowMillis, majorVersion, keyspace.copy(), pubSub.copy(), scripting, commandCount);
    }

    /** SHA1 of {@code text} (UTF-8) in lower-case hex, as SCRIPT LOAD and {@code redis.sha1hex} give it. */
    public static String sha1Hex(String text) {
        return LuaScripting.sha1Hex(text);
    }

    // package-private access for the commands

    long now() {
        return now;
    }

    Keyspace keyspace() {
        return keyspace;
    }

    PubSub pubSub() {
        return pubSub;
    }

    LuaScripting scripting() {
        return scripting;
    }

    Consumer<String> undeclaredKeyListener() {
        return undeclaredKeys;
    }
}
