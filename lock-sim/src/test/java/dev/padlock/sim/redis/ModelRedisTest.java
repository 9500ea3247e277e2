package dev.padlock.sim.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The subtle parts of {@link ModelRedis}, each as Redis 6.2 / 7.0 behave (see ModelDifferentialTest). */
class ModelRedisTest {

    private static final long T0 = 1_700_000_000_000L;

    private final AtomicLong clock = new AtomicLong(T0);
    private final ModelRedis redis = new ModelRedis(clock::get);

    private Object run(String... command) {
        return redis.execute(command);
    }

    private String errorOf(String... command) {
        try {
            Object reply = redis.execute(command);
            throw new AssertionError("expected an error reply, got " + reply);
        } catch (ModelRedisException e) {
            return e.getMessage();
        }
    }

    @Test
    void keyWhoseExpiryEqualsNowStillExistsWithPttlZero() {
        run("SET", "k", "v", "PX", "100");
        clock.set(T0 + 100);
        assertThat(run("PTTL", "k")).isEqualTo(0L);
        assertThat(run("TTL", "k")).isEqualTo(0L);
        assertThat(run("GET", "k")).isEqualTo("v");
        assertThat(redis.snapshot()).containsKey("k");
        clock.set(T0 + 101);
        assertThat(redis.snapshot()).doesNotContainKey("k");
        assertThat(run("DBSIZE")).as("not looked up yet").isEqualTo(1L);
        assertThat(run("EXISTS", "k")).isEqualTo(0L);
        assertThat(run("PTTL", "k")).isEqualTo(-2L);
        assertThat(run("DBSIZE")).isEqualTo(0L);
    }

    @Test
    void activeExpiryDropsOnlyKeysPastTheirExpiry() {
        run("SET", "a", "1", "PX", "10");
        run("SET", "b", "1", "PX", "20");
        run("SET", "c", "1");
        clock.set(T0 + 20);
        redis.expireDue();
        assertThat(run("DBSIZE")).isEqualTo(2L);
        assertThat(redis.snapshot().keySet()).containsExactly("b", "c");
    }

    @Test
    void ttlRoundsToTheNearestSecond() {
        run("SET", "a", "v", "PX", "1499");
        run("SET", "b", "v", "PX", "1500");
        run("SET", "c", "v");
        assertThat(run("TTL", "a")).isEqualTo(1L);
        assertThat(run("TTL", "b")).isEqualTo(2L);
        assertThat(run("TTL", "c")).isEqualTo(-1L);
        assertThat(run("TTL", "missing")).isEqualTo(-2L);
    }

    @Test
    void pexpireGtOnAKeyWithoutTtlDoesNothing() {
        run("HSET", "h", "f", "1");
        assertThat(run("PEXPIRE", "h", "1000", "GT")).isEqualTo(0L);
        assertThat(run("PTTL", "h")).isEqualTo(-1L);
        assertThat(run("PEXPIRE", "h", "1000", "LT")).as("no TTL counts as infinite").isEqualTo(1L);
        assertThat(run("PEXPIRE", "h", "500", "GT")).isEqualTo(0L);
        assertThat(run("PEXPIRE", "h", "2000", "GT")).isEqualTo(1L);
        assertThat(run("PTTL", "h")).isEqualTo(2000L);
        assertThat(run("PEXPIRE", "h", "100", "NX")).isEqualTo(0L);
        assertThat(run("PEXPIRE", "missing", "100", "XX")).isEqualTo(0L);
        assertThat(errorOf("PEXPIRE", "h", "100", "NX", "GT"))
                .isEqualTo("ERR NX and XX, GT or LT options at the same time are not compatible");
        assertThat(errorOf("PEXPIRE", "h", "100", "GT", "LT"))
                .isEqualTo("ERR GT and LT options at the same time are not compatible");
        assertThat(errorOf("PEXPIRE", "h", "100", "EQ")).isEqualTo("ERR Unsupported option EQ");
    }

    @Test
    void redis6HasNoExpireOptions() {
        ModelRedis six = new ModelRedis(clock::get, 6);
        six.execute("SET", "k", "v");
        assertThatThrownBy(() -> six.execute("PEXPIRE", "k", "100", "GT"))
                .hasMessage("ERR wrong number of arguments for 'pexpire' command");
        assertThatThrownBy(() -> six.execute("SPUBLISH", "c", "m")).hasMessageStartingWith("ERR unknown command");
        assertThatThrownBy(() -> six.execute("SET", "k", "v", "NX", "GET")).hasMessage("ERR syntax error");
    }

    @Test
    void nonPositiveExpiryDeletesTheKey() {
        run("SET", "a", "v");
        run("SET", "b", "v");
        assertThat(run("PEXPIRE", "a", "0")).isEqualTo(1L);
        assertThat(run("EXPIRE", "b", "-5")).isEqualTo(1L);
        assertThat(run("DBSIZE")).isEqualTo(0L);
        assertThat(run("PEXPIRE", "a", "100")).isEqualTo(0L);
        assertThat(errorOf("PEXPIRE", "a", "x")).isEqualTo("ERR value is not an integer or out of range");
        assertThat(errorOf("PEXPIRE", "a", "9223372036854775807"))
                .isEqualTo("ERR invalid expire time in 'pexpire' command");
    }

    @Test
    void setClearsTheTtlUnlessKeepttlAndContainerWritesKeepIt() {
        run("SET", "s", "1", "PX", "1000");
        run("SET", "s", "2", "KEEPTTL");
        assertThat(run("PTTL", "s")).isEqualTo(1000L);
        run("INCR", "s");
        assertThat(run("PTTL", "s")).isEqualTo(1000L);
        run("SET", "s", "3");
        assertThat(run("PTTL", "s")).isEqualTo(-1L);
        run("HSET", "h", "f", "1");
        run("PEXPIRE", "h", "500");
        run("HSET", "h", "g", "2");
        run("HINCRBY", "h", "f", "5");
        run("RPUSH", "l", "x");
        run("PEXPIRE", "l", "700");
        run("RPUSH", "l", "y");
        assertThat(run("PTTL", "h")).isEqualTo(500L);
        assertThat(run("PTTL", "l")).isEqualTo(700L);
        assertThat(run("SET", "s", "4", "NX")).isNull();
        assertThat(run("SET", "s", "5", "XX", "GET")).isEqualTo("3");
        assertThat(run("SET", "n", "1", "NX", "GET")).isNull();
        assertThat(run("GET", "n")).isEqualTo("1");
        assertThat(errorOf("SET", "s", "1", "PX", "0")).isEqualTo("ERR invalid expire time in 'set' command");
        assertThat(errorOf("SET", "s", "1", "PX", "5", "KEEPTTL")).isEqualTo("ERR syntax error");
    }

    @Test
    void wrongTypeErrors() {
        run("HSET", "h", "f", "1");
        run("SET", "s", "v");
        String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
        assertThat(errorOf("GET", "h")).isEqualTo(wrongType);
        assertThat(errorOf("HSET", "s", "f", "1")).isEqualTo(wrongType);
        assertThat(errorOf("LPUSH", "h", "x")).isEqualTo(wrongType);
        assertThat(errorOf("ZADD", "s", "1", "m")).isEqualTo(wrongType);
        assertThat(errorOf("INCR", "h")).isEqualTo(wrongType);
        assertThat(errorOf("SET", "h", "x", "GET")).isEqualTo(wrongType);
        assertThat(run("SET", "h", "x")).as("a plain SET replaces any type").isEqualTo(Status.OK);
        assertThat(run("TYPE", "h")).isEqualTo(new Status("string"));
        assertThat(run("TYPE", "nothing")).isEqualTo(new Status("none"));
        assertThat(run("LINDEX", "missing", "notanumber")).as("looked up before the index is read").isNull();
    }

    @Test
    void emptyContainersAreDeleted() {
        run("HSET", "h", "f", "1", "g", "2");
        assertThat(run("HDEL", "h", "f", "g", "x")).isEqualTo(2L);
        run("RPUSH", "l", "a", "b", "a");
        assertThat(run("LREM", "l", "0", "a")).isEqualTo(2L);
        assertThat(run("LPOP", "l")).isEqualTo("b");
        run("ZADD", "z", "1", "m");
        assertThat(run("ZREM", "z", "m")).isEqualTo(1L);
        run("RPUSH", "p", "a", "b");
        assertThat(run("RPOP", "p", "5")).isEqualTo(List.of("b", "a"));
        assertThat(run("DBSIZE")).isEqualTo(0L);
        assertThat(run("LPOP", "p", "0")).as("a nil array").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "+1", " 1", "01", "-0", "1.5", "", "9223372036854775808"})
    void integersAreReadAsRedisReadsThem(String text) {
        run("SET", "s", text);
        assertThat(errorOf("INCR", "s")).isEqualTo("ERR value is not an integer or out of range");
        assertThat(errorOf("INCRBY", "n", text)).isEqualTo("ERR value is not an integer or out of range");
        assertThat(errorOf("DECRBY", "s", "1")).isEqualTo("ERR value is not an integer or out of range");
    }

    @Test
    void decrbyTakesAwayAndRefusesWhatItCannotNegate() {
        run("SET", "sem", "3");
        run("PEXPIRE", "sem", "5000");
        assertThat(run("DECRBY", "sem", "2")).isEqualTo(1L);
        assertThat(run("DECRBY", "sem", "-4")).isEqualTo(5L);
        assertThat(run("PTTL", "sem")).as("kept, as INCRBY keeps it").isEqualTo(5000L);
        assertThat(run("DECRBY", "fresh", "2")).isEqualTo(-2L);
        assertThat(errorOf("DECRBY", "sem", "-9223372036854775808")).isEqualTo("ERR decrement would overflow");
        run("SET", "low", "-9223372036854775807");
        assertThat(errorOf("DECRBY", "low", "2")).isEqualTo("ERR increment or decrement would overflow");
        run("HSET", "h", "f", "1");
        assertThat(errorOf("DECRBY", "h", "1")).startsWith("WRONGTYPE");
        assertThat(errorOf("DECRBY", "h", "x")).as("the decrement is read first")
                .isEqualTo("ERR value is not an integer or out of range");
    }

    /** Redis 6.2 negates LLONG_MIN in C, which wraps to itself: seen by the differential test. */
    @Test
    void redis6DecrbyOfLongMinAddsIt() {
        ModelRedis six = new ModelRedis(clock::get, 6);
        assertThat(six.execute("DECRBY", "x", "-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void integerOverflowAndHashValues() {
        run("SET", "s", "9223372036854775807");
        assertThat(errorOf("INCR", "s")).isEqualTo("ERR increment or decrement would overflow");
        assertThat(run("INCRBY", "n", "-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        run("HSET", "h", "f", "x");
        assertThat(errorOf("HINCRBY", "h", "f", "1")).isEqualTo("ERR hash value is not an integer");
        assertThat(run("HINCRBY", "h", "g", "-3")).isEqualTo(-3L);
    }

    @Test
    void hashesKeepInsertionOrder() {
        run("HSET", "h", "b", "1", "a", "2", "c", "3");
        run("HSET", "h", "b", "9");
        run("HDEL", "h", "a");
        run("HSET", "h", "a", "4");
        assertThat(run("HKEYS", "h")).isEqualTo(List.of("b", "c", "a"));
        assertThat(run("HGETALL", "h")).isEqualTo(List.of("b", "9", "c", "3", "a", "4"));
        assertThat(run("HMGET", "h", "a", "x")).isEqualTo(Arrays.asList("4", null));
        assertThat(errorOf("HSET", "h", "f")).isEqualTo("ERR wrong number of arguments for 'hset' command");
        assertThat(errorOf("HSET", "h", "f", "1", "g"))
                .isEqualTo("ERR wrong number of arguments for 'hset' command");
    }

    @Test
    void listsAndLpos() {
        run("RPUSH", "l", "a", "b", "a", "c", "a");
        run("LPUSH", "l", "x", "y");
        assertThat(run("LRANGE", "l", "0", "-1")).isEqualTo(List.of("y", "x", "a", "b", "a", "c", "a"));
        assertThat(run("LPOS", "l", "a")).isEqualTo(2L);
        assertThat(run("LPOS", "l", "a", "RANK", "-1")).isEqualTo(6L);
        assertThat(run("LPOS", "l", "a", "COUNT", "0")).isEqualTo(List.of(2L, 4L, 6L));
        assertThat(run("LPOS", "l", "a", "RANK", "2", "COUNT", "1")).isEqualTo(List.of(4L));
        assertThat(run("LPOS", "l", "a", "MAXLEN", "2")).isNull();
        assertThat(run("LPOS", "l", "z")).isNull();
        assertThat(run("LPOS", "missing", "z", "COUNT", "1")).isEqualTo(List.of());
        assertThat(errorOf("LPOS", "l", "a", "RANK", "0")).startsWith("ERR RANK can't be zero");
        assertThat(run("LREM", "l", "-1", "a")).isEqualTo(1L);
        assertThat(run("LINDEX", "l", "-1")).isEqualTo("c");
        assertThat(run("LLEN", "l")).isEqualTo(6L);
    }

    @Test
    void sortedSetsOrderByScoreThenMemberAndFormatScoresAsPercent17g() {
        run("ZADD", "z", "2", "b", "1", "c", "1", "a", "0.1", "d");
        assertThat(run("ZRANGE", "z", "0", "-1")).isEqualTo(List.of("d", "a", "c", "b"));
        assertThat(run("ZSCORE", "z", "d")).isEqualTo("0.10000000000000001");
        assertThat(run("ZSCORE", "z", "b")).isEqualTo("2");
        assertThat(run("ZRANGE", "z", "0", "0", "WITHSCORES")).isEqualTo(List.of("d", "0.10000000000000001"));
        assertThat(run("ZRANGEBYSCORE", "z", "(0.1", "1")).isEqualTo(List.of("a", "c"));
        assertThat(run("ZADD", "z", "GT", "CH", "0", "b", "3", "a")).isEqualTo(1L);
        assertThat(run("ZADD", "z", "NX", "5", "b", "5", "e")).isEqualTo(1L);
        assertThat(run("ZCARD", "z")).isEqualTo(5L);
        run("ZADD", "t", "1700000000123", "m", "1e20", "n");
        assertThat(run("ZSCORE", "t", "m")).isEqualTo("1700000000123");
        assertThat(run("ZSCORE", "t", "n")).isEqualTo("1e+20");
        assertThat(errorOf("ZADD", "z", "x", "m")).isEqualTo("ERR value is not a valid float");
        assertThat(errorOf("ZADD", "z", "NX", "XX", "1", "m"))
                .isEqualTo("ERR XX and NX options at the same time are not compatible");
    }

    @Test
    void keysMatchGlobs() {
        for (String key : List.of("padlock_since:{a}", "padlock_queue:{a}", "a", "b", "h?llo")) {
            run("SET", key, "1");
        }
        assertThat(run("KEYS", "*")).isEqualTo(List.of("a", "b", "h?llo", "padlock_queue:{a}", "padlock_since:{a}"));
        assertThat(run("KEYS", "padlock_*")).isEqualTo(List.of("padlock_queue:{a}", "padlock_since:{a}"));
        assertThat(run("KEYS", "[ab]")).isEqualTo(List.of("a", "b"));
        assertThat(run("KEYS", "h\\?llo")).isEqualTo(List.of("h?llo"));
        assertThat(run("KEYS", "*{a}")).isEqualTo(List.of("padlock_queue:{a}", "padlock_since:{a}"));
    }

    @Test
    void noscriptUntilLoadedAndAfterFlush() {
        String body = "return 1";
        String sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";
        assertThat(errorOf("EVALSHA", sha, "0")).isEqualTo("NOSCRIPT No matching script. Please use EVAL.");
        assertThat(errorOf("EVALSHA", "short", "0")).isEqualTo("NOSCRIPT No matching script. Please use EVAL.");
        assertThat(run("EVAL", body, "0")).isEqualTo(1L);
        assertThat(run("EVALSHA", sha.toUpperCase(java.util.Locale.ROOT), "0")).isEqualTo(1L);
        assertThat(run("SCRIPT", "EXISTS", sha, "0000")).isEqualTo(List.of(1L, 0L));
        assertThat(run("SCRIPT", "FLUSH")).isEqualTo(Status.OK);
        assertThat(errorOf("EVALSHA", sha, "0")).startsWith("NOSCRIPT");
        assertThat(run("SCRIPT", "LOAD", body)).isEqualTo(sha);
        redis.restartEmpty();
        assertThat(errorOf("EVALSHA", sha, "0")).startsWith("NOSCRIPT");
        assertThat(errorOf("EVAL", body, "2", "k")).isEqualTo("ERR Number of keys can't be greater than number of args");
        assertThat(errorOf("EVAL", body, "-1")).isEqualTo("ERR Number of keys can't be negative");
        assertThat(errorOf("EVAL", "return +", "0")).startsWith("ERR Error compiling script");
    }

    @Test
    void pcallCatchesAnErrorThatCallRaises() {
        run("SET", "s", "v");
        Object reply = run("EVAL", """
                local ok, e = pcall(redis.call, 'hget', KEYS[1], 'f')
                local r = redis.pcall('hget', KEYS[1], 'f')
                return {ok and 1 or 0, e['err'], r['err']}""", "1", "s");
        String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
        assertThat(reply).isEqualTo(List.of(0L, wrongType, wrongType));
        ModelRedis six = new ModelRedis(clock::get, 6);
        six.execute("SET", "s", "v");
        assertThat(six.execute("EVAL", "local ok, e = pcall(redis.call, 'pexpire', KEYS[1], 10, 'gt')\n"
                + "return {ok and 1 or 0, type(e)}", "1", "s")).as("6 raises the text").isEqualTo(List.of(0L, "string"));
    }

    @Test
    void uncaughtErrorsBecomeTheScriptsErrorReplyAndKeepEarlierWrites() {
        run("SET", "s", "v");
        String script = "redis.call('set', KEYS[2], 'written')\nredis.call('hget', KEYS[1], 'f')\nreturn 1";
        assertThat(errorOf("EVAL", script, "2", "s", "w"))
                .startsWith("WRONGTYPE Operation against a key holding the wrong kind of value script: f_")
                .endsWith("on @user_script:2.");
        assertThat(run("GET", "w")).as("no rollback").isEqualTo("written");
        assertThat(errorOf("EVAL", "local x = nil\nreturn x + 1", "0")).startsWith("ERR user_script:2: ");
        assertThat(errorOf("EVAL", "return redis.call('nosuchcommand')", "0"))
                .startsWith("ERR Unknown Redis command called from script");
        assertThat(errorOf("EVAL", "return redis.call('get')", "0"))
                .startsWith("ERR Wrong number of args calling Redis command from script");
        assertThat(errorOf("EVAL", "return redis.call('eval', 'return 1', 0)", "0"))
                .startsWith("ERR This Redis command is not allowed from script");
        assertThat(errorOf("EVAL", "return redis.call('get', {})", "0"))
                .startsWith("ERR Lua redis lib command arguments must be strings or integers");
        ModelRedis six = new ModelRedis(clock::get, 6);
        six.execute("SET", "s", "v");
        assertThatThrownBy(() -> six.execute("EVAL", script, "2", "s", "w"))
                .hasMessageStartingWith("ERR Error running script (call to f_")
                .hasMessageContaining("WRONGTYPE");
    }

    @Test
    void timeIsFrozenWithinAScriptAndTheClockIsReadOncePerCommand() {
        AtomicLong reads = new AtomicLong();
        ModelRedis ticking = new ModelRedis(() -> T0 + 7 * reads.incrementAndGet());
        long before = reads.get();
        Object reply = ticking.execute("EVAL", "local a = redis.call('time')\nredis.call('set', 'k', 'v', 'px', 1)\n"
                + "local b = redis.call('time')\nreturn {a[1], a[2], b[1], b[2], redis.call('pttl', 'k')}", "0");
        assertThat(reads.get() - before).isEqualTo(1);
        List<?> r = (List<?>) reply;
        assertThat(r.subList(0, 2)).isEqualTo(r.subList(2, 4));
        assertThat(r.get(4)).isEqualTo(1L);
        assertThat(run("TIME")).isEqualTo(List.of("1700000000", "0"));
    }

    @Test
    void luaValuesConvertAsRedisConvertsThem() {
        assertThat(run("EVAL", "return {1, 'a', false, {2, 'b'}, nil, 3}", "0"))
                .isEqualTo(Arrays.asList(1L, "a", null, List.of(2L, "b")));
        assertThat(run("EVAL", "return {nil, 1}", "0")).isEqualTo(List.of());
        assertThat(run("EVAL", "return true", "0")).isEqualTo(1L);
        assertThat(run("EVAL", "return false", "0")).isNull();
        assertThat(run("EVAL", "return nil", "0")).isNull();
        assertThat(run("EVAL", "return 3.99", "0")).isEqualTo(3L);
        assertThat(run("EVAL", "return -3.99", "0")).isEqualTo(-3L);
        assertThat(run("EVAL", "return {ok = 'fine'}", "0")).isEqualTo(new Status("fine"));
        assertThat(run("EVAL", "return redis.status_reply('DONE')", "0")).isEqualTo(new Status("DONE"));
        assertThat(errorOf("EVAL", "return {err = 'MY error'}", "0")).isEqualTo("MY error");
        assertThat(errorOf("EVAL", "return redis.error_reply('oops')", "0")).isEqualTo("ERR oops");
        assertThat(run("EVAL", "return redis.call('ping')", "0")).isEqualTo(new Status("PONG"));
        assertThat(run("EVAL", "return redis.call('ping')['ok']", "0")).isEqualTo("PONG");
        assertThat(run("EVAL", "return redis.call('get', 'missing') == false and 1 or 0", "0")).isEqualTo(1L);
        assertThat(run("EVAL", "return {unpack(ARGV, 2)}", "0", "a", "b", "c")).isEqualTo(List.of("b", "c"));
        assertThat(run("EVAL", "return redis.sha1hex('return 1')", "0"))
                .isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
        assertThat(run("EVAL", "return string.format('%d|%03d|%06d|%5d|%-3d|%s', 1700000000123, 7, 42, -12, 1, 'x')",
                "0")).isEqualTo("1700000000123|007|000042|  -12|1  |x");
        assertThat(run("EVAL", "redis.call('set', 'n', 1700000000123 + 0.5 - 0.5)\nreturn redis.call('get', 'n')", "0"))
                .isEqualTo("1700000000123");
        assertThat(run("EVAL", "x = 1\nreturn x", "0")).isEqualTo(1L);
        assertThat(run("EVAL", "return x", "0")).as("globals do not outlive a run").isNull();
    }

    @Test
    void publishCountsSubscribersOnceAndDeliversInSubscriptionOrder() {
        List<String> deliveries = new ArrayList<>();
        redis.onPublish((subscriber, channel, message) -> deliveries.add(subscriber + "<" + channel + ":" + message));
        redis.subscribe("c2", "ch");
        redis.subscribe("c1", "ch");
        redis.subscribe("c2", "ch");
        assertThat(run("PUBLISH", "ch", "hi")).isEqualTo(2L);
        assertThat(run("EVAL", "return redis.call(ARGV[1], KEYS[1], 'm')", "1", "ch", "spublish")).isEqualTo(2L);
        redis.unsubscribe("c2", "ch");
        assertThat(run("PUBLISH", "ch", "x")).isEqualTo(1L);
        redis.unsubscribeAll("c1");
        assertThat(run("PUBLISH", "ch", "y")).isEqualTo(0L);
        assertThat(deliveries).containsExactly("c2<ch:hi", "c1<ch:hi", "c2<ch:m", "c1<ch:m", "c1<ch:x");
        assertThat(redis.published()).containsExactly(new ModelRedis.Published("ch", "hi", 2),
                new ModelRedis.Published("ch", "m", 2), new ModelRedis.Published("ch", "x", 1),
                new ModelRedis.Published("ch", "y", 0));
    }

    @Test
    void snapshotShowsTypesValuesAndPttls() {
        run("SET", "s", "v", "PX", "50");
        run("HSET", "h", "f", "1");
        run("RPUSH", "l", "a", "b");
        run("ZADD", "z", "2", "x", "1", "y");
        Map<String, ModelRedis.Entry> snapshot = redis.snapshot();
        assertThat(snapshot.keySet()).containsExactly("h", "l", "s", "z");
        assertThat(snapshot.get("s")).isEqualTo(new ModelRedis.Entry("string", "v", 50));
        assertThat(snapshot.get("h")).isEqualTo(new ModelRedis.Entry("hash", Map.of("f", "1"), -1));
        assertThat(snapshot.get("l")).isEqualTo(new ModelRedis.Entry("list", List.of("a", "b"), -1));
        assertThat(new ArrayList<Object>(((Map<?, ?>) snapshot.get("z").value()).keySet())).containsExactly("y", "x");
        assertThat(redis.commandCount()).isEqualTo(4);
    }

    @Test
    void aCopyIsIndependent() {
        run("HSET", "h", "f", "1");
        run("SCRIPT", "LOAD", "return 1");
        ModelRedis copy = redis.copy(clock::get);
        copy.execute("HSET", "h", "g", "2");
        assertThat(run("HLEN", "h")).isEqualTo(1L);
        assertThat(copy.execute("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0")).isEqualTo(1L);
    }

    @Test
    void everyLockLuaScriptCompiles() {
        Map<String, String> scripts = LockLuaScripts.all();
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(25).containsKey("lock_acquire");
        scripts.forEach((name, body) -> assertThat(run("SCRIPT", "LOAD", body)).as(name).isEqualTo(ModelRedis.sha1Hex(body)));
    }

    @Test
    void lockScriptsRunUnchanged() {
        String acquire = LockLuaScripts.body("lock_acquire");
        String release = LockLuaScripts.body("lock_release");
        assertThat(run("EVAL", acquire, "2", "a", "padlock_since:{a}", "30000", "c1:1")).isNull();
        assertThat(run("EVAL", acquire, "2", "a", "padlock_since:{a}", "30000", "c1:1")).isNull();
        assertThat(run("HGET", "a", "c1:1")).isEqualTo("2");
        assertThat(run("EXISTS", "padlock_since:{a}")).as("a first hold writes only the lock").isEqualTo(0L);
        String since = LockLuaScripts.body("lock_since");
        assertThat(run("EVAL", since, "2", "a", "padlock_since:{a}", "c1:1", "1000")).isEqualTo(1L);
        assertThat(run("HGET", "padlock_since:{a}", "c1:1")).isEqualTo(Long.toString(T0 - 1000));
        assertThat(run("EVAL", acquire, "2", "a", "padlock_since:{a}", "30000", "c2:1")).isEqualTo(30000L);
        redis.subscribe("c2", "redisson_lock__channel:{a}");
        assertThat(run("EVAL", release, "3", "a", "redisson_lock__channel:{a}", "padlock_since:{a}",
                "0", "1000", "c1:1", "publish")).isEqualTo(0L);
        assertThat(run("EVAL", release, "3", "a", "redisson_lock__channel:{a}", "padlock_since:{a}",
                "0", "1000", "c1:1", "publish")).isEqualTo(2L);
        assertThat(redis.snapshot()).isEmpty();
        String settle = LockLuaScripts.body("fair_settle");
        run("HSET", "f", "c1:1", "1");
        run("PEXPIRE", "f", "1000");
        assertThat(run("EVAL", settle, "2", "f", "padlock_since:{f}", "c1:1", "25")).isEqualTo(1L);
        assertThat(run("HGET", "padlock_since:{f}", "c1:1")).isEqualTo(Long.toString(T0 - 25));
    }
}
