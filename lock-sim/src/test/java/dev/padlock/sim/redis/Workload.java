package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * The differential test's random steps, all drawn from one seed: plain commands over a small key
 * space that overlaps the scripts' keys (so types collide), calls of the lock-lua scripts
 * ({@link ScriptCalls}), subscription changes, and waits for short leases to run out.
 */
final class Workload {

    /** One step of a sequence. */
    sealed interface Step permits Command, Subscription, AwaitExpiry {
    }

    /**
     * A command run on both servers.
     *
     * @param script the script's name when it is an EVALSHA of a lock-lua script (retried with EVAL
     *     on NOSCRIPT), else null
     */
    record Command(List<String> argv, Check check, String script) implements Step {
    }

    /** SUBSCRIBE (or UNSUBSCRIBE) of one of the test's subscriber connections, on both servers. */
    record Subscription(String subscriber, String channel, boolean subscribe) implements Step {
    }

    /** Wait until every key whose PTTL is at most {@code withinMillis} has expired on both servers. */
    record AwaitExpiry(long withinMillis) implements Step {
    }

    /** How a reply is compared (values that look like epoch ms or µs are compared within a tolerance in all). */
    enum Check {
        EXACT,
        /** integers of at least 0 are durations in ms, compared within a tolerance */
        DURATION,
        /** an array in no particular order (KEYS) */
        SORTED,
        /** DBSIZE: expired keys not yet dropped are counted by both, each at its own pace */
        DBSIZE,
        /** TIME: within a tolerance */
        TIME
    }

    static final List<String> SUBSCRIBERS = List.of("s1", "s2");
    static final List<String> CHANNELS = List.of("padlock_grant:{a}:c1", "padlock_grant:{a}:c2",
            "padlock_grant:{b}:c1", "padlock_grant:{b}:c2", "padlock_grant:{rw}:c1", "padlock_grant:{rw}:c2",
            "padlock_grant:{rw2}:c1", "redisson_lock__channel:{a}", "redisson_lock__channel:{b}",
            "redisson_lock__channel:{a}:r1:1", "redisson_rwlock:{rw}", "redisson_rwlock:{rw}:c1:1:write",
            "redisson_rwlock:{rw}:c2:1:write", "redisson_rwlock:{rw2}", "news");
    private static final List<String> PLAIN_KEYS = List.of("x", "y", "z", "hs", "ls", "zs");
    private static final List<String> VALUES = List.of("0", "1", "42", "-7", "v", "abc", "9223372036854775807", "");
    private static final List<String> DECREMENTS = List.of("1", "2", "-3", "0", "x", "1.5", "-9223372036854775808",
            "9223372036854775807");
    private static final List<String> PATTERNS = List.of("*", "padlock_*", "*{a}*", "[xy]", "?", "redisson_*",
            "*rwlock_timeout*");

    private final Random random;
    private final LongSupplier clock;
    private final ScriptCalls scripts;
    private final SemaphoreCalls semaphores;
    private final List<String> scriptKeys;

    Workload(long seed, LongSupplier clock) {
        this.random = new Random(seed);
        this.clock = clock;
        this.scripts = new ScriptCalls(random);
        this.semaphores = new SemaphoreCalls(random, clock);
        List<String> keys = new ArrayList<>(ScriptCalls.keySpace());
        keys.addAll(SemaphoreCalls.keySpace());
        this.scriptKeys = List.copyOf(keys);
    }

    /** The channels each subscriber starts a sequence with. */
    List<Subscription> initialSubscriptions() {
        List<Subscription> initial = new ArrayList<>();
        for (String subscriber : SUBSCRIBERS) {
            for (String channel : CHANNELS) {
                if (random.nextInt(3) == 0) {
                    initial.add(new Subscription(subscriber, channel, true));
                }
            }
        }
        return initial;
    }

    Step next() {
        int roll = random.nextInt(1000);
        if (roll < 130) {
            return semaphores.next();
        }
        if (roll < 650) {
            return scripts.next();
        }
        if (roll < 660) {
            return new Subscription(pick(SUBSCRIBERS), pick(CHANNELS), random.nextBoolean());
        }
        if (roll < 665) {
            return new AwaitExpiry(60);
        }
        if (roll < 670) {
            return command(Check.EXACT, "SCRIPT", "FLUSH");
        }
        if (roll < 671) {
            return command(Check.EXACT, "FLUSHALL");
        }
        return plain();
    }

    private String key() {
        return random.nextInt(4) == 0 ? pick(scriptKeys) : pick(PLAIN_KEYS);
    }

    /** Mostly the key kept for {@code typed} commands (hs, ls, zs), so containers grow. */
    private String key(String typed) {
        return random.nextBoolean() ? typed : key();
    }

    private String shortOrLong() {
        return Integer.toString(random.nextBoolean() ? 5 + random.nextInt(46) : 100 + random.nextInt(3000));
    }

    private Step plain() {
        String k = key();
        return switch (random.nextInt(53)) {
            case 0 -> command(Check.EXACT, "GET", k);
            case 1 -> set(k);
            case 2 -> command(Check.EXACT, "DEL", k, key());
            case 3 -> command(Check.EXACT, "EXISTS", k, key(), k);
            case 4 -> command(Check.EXACT, "INCR", k);
            case 5 -> command(Check.EXACT, "INCRBY", k, pick(VALUES));
            case 6 -> expire("PEXPIRE", k, shortOrLong());
            case 7 -> expire("EXPIRE", k, Integer.toString(random.nextInt(5) - 1));
            case 8 -> command(Check.EXACT, "PERSIST", k);
            case 9 -> command(Check.DURATION, "PTTL", k);
            case 10 -> command(Check.EXACT, "TTL", k);
            case 11 -> command(Check.EXACT, "TYPE", k);
            case 12 -> command(Check.SORTED, "KEYS", pick(PATTERNS));
            case 13 -> command(Check.DBSIZE, "DBSIZE");
            case 14 -> random.nextBoolean() ? command(Check.EXACT, "HSET", key("hs"), field(), pick(VALUES))
                    : command(Check.EXACT, "HSET", k, field(), pick(VALUES), field(), pick(VALUES));
            case 15 -> command(Check.EXACT, "HGET", key("hs"), field());
            case 16 -> command(Check.EXACT, "HDEL", key("hs"), field(), field());
            case 17 -> command(Check.EXACT, "HEXISTS", key("hs"), field());
            case 18 -> command(Check.EXACT, "HINCRBY", key("hs"), field(), pick(VALUES));
            case 19 -> command(Check.EXACT, "HLEN", key("hs"));
            case 20 -> command(Check.EXACT, "HKEYS", key("hs"));
            case 21 -> command(Check.EXACT, "HGETALL", key("hs"));
            case 22 -> command(Check.EXACT, "HMGET", key("hs"), field(), field());
            case 23 -> command(Check.EXACT, "HVALS", key("hs"));
            case 24 -> command(Check.EXACT, random.nextBoolean() ? "RPUSH" : "LPUSH", key("ls"), element(), element());
            case 25 -> random.nextBoolean() ? command(Check.EXACT, "LPOP", key("ls"))
                    : command(Check.EXACT, "LPOP", k, Integer.toString(random.nextInt(4) - 1));
            case 26 -> random.nextBoolean() ? command(Check.EXACT, "RPOP", key("ls"))
                    : command(Check.EXACT, "RPOP", k, Integer.toString(random.nextInt(3)));
            case 27 -> command(Check.EXACT, "LINDEX", key("ls"), Integer.toString(random.nextInt(7) - 3));
            case 28 -> command(Check.EXACT, "LRANGE", key("ls"), Integer.toString(random.nextInt(5) - 2),
                    Integer.toString(random.nextInt(5) - 2));
            case 29 -> command(Check.EXACT, "LLEN", key("ls"));
            case 30 -> command(Check.EXACT, "LREM", key("ls"), Integer.toString(random.nextInt(5) - 2), element());
            case 31 -> lpos(key("ls"));
            case 32 -> zadd(key("zs"));
            case 33 -> command(Check.EXACT, "ZSCORE", key("zs"), element());
            case 34 -> command(Check.EXACT, "ZREM", key("zs"), element(), element());
            case 35 -> random.nextBoolean() ? command(Check.EXACT, "ZRANGE", key("zs"), "0", "-1", "WITHSCORES")
                    : command(Check.EXACT, "ZRANGE", k, Integer.toString(random.nextInt(3) - 1), "-1");
            case 36 -> command(Check.EXACT, "ZCARD", key("zs"));
            case 37 -> command(Check.EXACT, "ZRANGEBYSCORE", key("zs"), pick(List.of("-inf", "(1", "0", "2")),
                    pick(List.of("+inf", "(3", "2", "abc")), "WITHSCORES");
            case 38 -> command(Check.TIME, "TIME");
            case 39 -> random.nextBoolean() ? command(Check.EXACT, "PING") : command(Check.EXACT, "ECHO", element());
            case 40 -> command(Check.EXACT, "PUBLISH", pick(CHANNELS), element());
            case 41 -> command(Check.EXACT, "WAIT", "0", "0");
            case 42 -> redissonFairWaiter();
            case 43 -> command(Check.EXACT, "SCRIPT", "EXISTS", ScriptCalls.sha("lock_acquire"),
                    ScriptCalls.sha("fair_release"));
            case 44 -> command(Check.EXACT, "SCRIPT", "LOAD", ScriptCalls.body(pick(ScriptCalls.NAMES)));
            case 45, 46 -> expire("PEXPIRE", pick(PLAIN_KEYS), shortOrLong());
            case 47 -> command(Check.EXACT, "RPUSH", key("ls"), element(), element(), element());
            case 48 -> command(Check.EXACT, "LREM", key("ls"), Integer.toString(random.nextInt(5) - 2),
                    element());
            case 49 -> command(Check.EXACT, "DECRBY", k, pick(DECREMENTS));
            case 50 -> command(Check.EXACT, "DECR", k);
            case 51 -> command(Check.EXACT, "INCRBY", key("sem"), pick(DECREMENTS));
            default -> malformed(k);
        };
    }

    private Step set(String k) {
        List<String> argv = new ArrayList<>(List.of("SET", k, pick(VALUES)));
        List<List<String>> options = List.of(List.of("NX"), List.of("XX"), List.of("GET"), List.of("KEEPTTL"),
                List.of("PX", shortOrLong()), List.of("EX", Integer.toString(random.nextInt(3))));
        for (int i = random.nextInt(3); i > 0; i--) {
            argv.addAll(pick(options));
        }
        return new Command(argv, Check.EXACT, null);
    }

    private Step expire(String name, String k, String amount) {
        List<String> argv = new ArrayList<>(List.of(name, k, amount));
        if (random.nextBoolean()) {
            argv.add(pick(List.of("NX", "XX", "GT", "LT", "gt")));
        }
        return new Command(argv, Check.EXACT, null);
    }

    private Step lpos(String k) {
        List<String> argv = new ArrayList<>(List.of("LPOS", k, element()));
        if (random.nextBoolean()) {
            argv.addAll(List.of("RANK", pick(List.of("1", "2", "-1", "0"))));
        }
        if (random.nextBoolean()) {
            argv.addAll(List.of("COUNT", pick(List.of("0", "1", "2"))));
        }
        if (random.nextInt(4) == 0) {
            argv.addAll(List.of("MAXLEN", pick(List.of("0", "1", "3"))));
        }
        return new Command(argv, Check.EXACT, null);
    }

    private Step zadd(String k) {
        List<String> argv = new ArrayList<>(List.of("ZADD", k));
        if (random.nextInt(3) == 0) {
            argv.add(pick(List.of("NX", "XX", "GT", "LT", "CH")));
        }
        for (int i = 1 + random.nextInt(2); i > 0; i--) {
            argv.add(pick(List.of("1", "2.5", "-1", "0.1", "inf", "x", "1e3")));
            argv.add(element());
        }
        return new Command(argv, Check.EXACT, null);
    }

    /** A Redisson fair waiter in its queue and deadlines, with a deadline far from now either way. */
    private Step redissonFairWaiter() {
        String name = pick(List.of("{a}", "{b}"));
        if (random.nextBoolean()) {
            return command(Check.EXACT, "RPUSH", "redisson_lock_queue:" + name, pick(List.of("r1:1", "r2:1")));
        }
        long deadline = clock.getAsLong() + (random.nextBoolean() ? -5_000 : 60_000);
        return command(Check.EXACT, "ZADD", "redisson_lock_timeout:" + name, Long.toString(deadline),
                pick(List.of("r1:1", "r2:1")));
    }

    private Step malformed(String k) {
        return switch (random.nextInt(6)) {
            case 0 -> command(Check.EXACT, "GET");
            case 1 -> command(Check.EXACT, "NOSUCHCOMMAND", k);
            case 2 -> command(Check.EXACT, "HSET", k, "f");
            case 3 -> command(Check.EXACT, "EVAL", "return 1", "2", k);
            case 4 -> command(Check.EXACT, "EVALSHA", "0123456789012345678901234567890123456789", "0");
            default -> command(Check.EXACT, "SET", k, "v", "PX", "0");
        };
    }

    private String field() {
        return pick(List.of("f", "g", "c1:1", "mode"));
    }

    private String element() {
        return pick(List.of("a", "b", "c1", "r1:1"));
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    private static Command command(Check check, String... argv) {
        return new Command(Arrays.asList(argv), check, null);
    }
}
