package dev.padlock.sim.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The strict keys rule of {@link ModelRedis#refuseUndeclaredKeys} and its exceptions ({@link DeclaredKeys}). */
class DeclaredKeysTest {

    private static final long T0 = 1_700_000_000_000L;

    private final List<String> refused = new ArrayList<>();
    private final ModelRedis strict = new ModelRedis(() -> T0);

    DeclaredKeysTest() {
        strict.refuseUndeclaredKeys(refused::add);
    }

    @Test
    void aScriptTouchingAnUndeclaredKeyFailsAndWhatItWroteBeforeStays() {
        String script = "redis.call('set', KEYS[1], 'v')\nreturn redis.call('get', 'elsewhere')";

        assertThatThrownBy(() -> strict.execute("EVAL", script, "1", "k"))
                .isInstanceOf(ModelRedisException.class)
                .hasMessageContaining("script tried accessing undeclared key, key: elsewhere");
        assertThat(refused).singleElement().asString().contains("GET on 'elsewhere'").contains("[k]");
        assertThat(strict.execute("GET", "k")).as("not rolled back, as on Dragonfly").isEqualTo("v");

        ModelRedis lenient = new ModelRedis(() -> T0);
        assertThat(lenient.execute("EVAL", script, "1", "k")).as("Redis itself allows it").isNull();
    }

    @Test
    void noPcallCatchesTheRefusal() {
        assertThatThrownBy(() -> strict.execute("EVAL", "pcall(redis.call, 'get', 'x')\nreturn 1", "0"))
                .hasMessageContaining("undeclared key, key: x");
        assertThatThrownBy(() -> strict.execute("EVAL", "redis.pcall('get', 'y')\nreturn 1", "0"))
                .hasMessageContaining("undeclared key, key: y");
        assertThat(refused).hasSize(2);
    }

    @Test
    void everyKeyOfDelIsCheckedAndChannelsAreNoKeys() {
        String script = "redis.call('publish', 'any:channel', 'm')\nreturn redis.call('del', KEYS[1], 'other')";

        assertThatThrownBy(() -> strict.execute("EVAL", script, "1", "k")).hasMessageContaining("key: other");
        assertThat(strict.execute("EVAL", "return redis.call('del', KEYS[1], KEYS[2])", "2", "a", "b")).isEqualTo(0L);
        assertThat(strict.execute("EVAL", "return redis.call('time')[1] ~= nil", "0")).isEqualTo(1L);
        assertThat(refused).hasSize(1);
    }

    @Test
    void anExceptionCoversOnlyItsScriptAndItsKeys() {
        List<String> releaseKeys = List.of("a", "redisson_lock__channel:{a}", "padlock_since:{a}", "padlock_queue:{a}",
                "padlock_waiter:{a}:c1");
        List<String> releaseArgs = List.of("0", "0", "c1:1", "publish");
        assertThat(DeclaredKeys.undeclared("lock_release", releaseKeys, releaseArgs,
                List.of("GET", "padlock_waiter:{a}:c2"))).as("another client's place").isNull();
        assertThat(DeclaredKeys.undeclared("lock_release", releaseKeys.subList(0, 4), releaseArgs,
                List.of("DEL", "padlock_waiter:{a}:c1"))).as("its own place, which its caller must pass")
                .isEqualTo("padlock_waiter:{a}:c1");
        assertThat(DeclaredKeys.undeclared("lock_release", releaseKeys, releaseArgs,
                List.of("GET", "padlock_waiter:{b}:c2"))).as("a place in another lock's line")
                .isEqualTo("padlock_waiter:{b}:c2");
        assertThat(DeclaredKeys.undeclared("lock_claim", releaseKeys.subList(0, 1), releaseArgs,
                List.of("GET", "padlock_waiter:{a}:c2"))).as("another script").isEqualTo("padlock_waiter:{a}:c2");

        List<String> readKeys = List.of("rw", "{rw}:c1:1:rwlock_timeout", "padlock_rw_gate:{rw}");
        assertThat(DeclaredKeys.undeclared("rw_read_acquire", readKeys, List.of(),
                List.of("SET", "{rw}:c1:1:rwlock_timeout:3", "1"))).isNull();
        assertThat(DeclaredKeys.undeclared("rw_read_acquire", readKeys, List.of(),
                List.of("SET", "{rw}:c2:1:rwlock_timeout:3", "1"))).as("another reader's").isNotNull();
        List<String> writeKeys = List.of("rw", "{rw}");
        assertThat(DeclaredKeys.undeclared("rw_write_acquire", writeKeys, List.of(),
                List.of("EXISTS", "{rw}:c2:1:rwlock_timeout:3"))).isNull();
        assertThat(DeclaredKeys.undeclared("rw_write_acquire", writeKeys, List.of(),
                List.of("EXISTS", "{rw}:c2:1"))).as("not a hold key").isNotNull();
    }

    @Test
    void theScriptsWithExceptionsAreExactlyTheOnesThatTellDragonfly() {
        Set<String> flagged = LockLuaScripts.all().entrySet().stream()
                .filter(script -> script.getValue().startsWith("--!df flags=allow-undeclared-keys\n"))
                .map(java.util.Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
        Set<String> excepted = DeclaredKeys.EXCEPTIONS.stream().map(DeclaredKeys.Exception::script)
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(flagged).as("lock-lua scripts whose first line is Dragonfly's flags line")
                .isEqualTo(excepted).hasSize(7);
    }

    @Test
    void lockReleaseGrantsToAnotherClientInLineOnAStrictServer() {
        strict.execute("HSET", "a", "c1:1", "1");
        strict.execute("SET", "padlock_waiter:{a}:c2", "7:5000:41");
        strict.execute("RPUSH", "padlock_queue:{a}", "c2");
        strict.subscribe("c2", "redisson_lock__channel:{a}");
        strict.subscribe("c2", "padlock_grant:{a}:c2");

        assertThat(strict.execute("EVALSHA", strict.execute("SCRIPT", "LOAD", LockLuaScripts.body("lock_release"))
                .toString(), "5", "a", "redisson_lock__channel:{a}", "padlock_since:{a}", "padlock_queue:{a}",
                "padlock_waiter:{a}:c1", "0", "0", "c1:1", "publish")).isEqualTo(-1L);
        assertThat(strict.execute("HGET", "a", "c2:7")).isEqualTo("1");
        assertThat(refused).isEmpty();
    }

    @Test
    void theSemaphoreScriptsTouchOnlyTheirKeysOnAStrictServer() {
        SemaphoreCalls calls = new SemaphoreCalls(new java.util.Random(41), () -> T0);
        java.util.Set<String> run = new TreeSet<>();
        for (int i = 0; i < 3_000; i++) {
            Workload.Command call = calls.next();
            if (call.script() == null) {
                strict.execute(call.argv());
                continue;
            }
            List<String> eval = new ArrayList<>(call.argv());
            eval.set(0, "EVAL");
            eval.set(1, ScriptCalls.body(call.script()));
            try {
                strict.execute(eval);
                run.add(call.script());
            } catch (ModelRedisException e) {
                assertThat(e).as("a type collision, not a refusal").hasMessageNotContaining(DeclaredKeys.REFUSAL);
            }
        }
        assertThat(refused).as("no exception is needed: every key a semaphore script touches is in its KEYS").isEmpty();
        assertThat(run).containsAll(SemaphoreCalls.NAMES);
        assertThat(DeclaredKeys.EXCEPTIONS).noneMatch(e -> SemaphoreCalls.NAMES.contains(e.script()));
    }
}
