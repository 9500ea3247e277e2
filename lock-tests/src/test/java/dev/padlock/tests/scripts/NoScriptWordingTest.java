package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Servers word {@code NOSCRIPT} differently: Redis 7.0 answers "NOSCRIPT No matching script.
 * Please use EVAL.", Valkey 8 "NOSCRIPT No matching script." A lock library that matched the whole
 * text failed every acquisition on Valkey (issue 40). Padlock's script runner goes by the error
 * code alone (Lettuce's {@link RedisNoScriptException}), so that whatever server this runs on
 * ({@code -Dpadlock.redis.binary=valkey} in CI) loads a flushed script again.
 */
@RedisTest
class NoScriptWordingTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void thisServersNoScriptAnswerLoadsTheScriptAgain(RedisAdmin admin) {
        LockClient client = clients.open();
        RLock lock = client.getLock(Clients.uniqueName("noscript-wording"));
        String claim = LuaScript.LOCK_CLAIM.sha1(); // a fresh acquisition claims
        String release = LuaScript.LOCK_RELEASE.sha1();

        admin.scriptFlush();

        assertThatThrownBy(() -> admin.commands().evalsha(claim, ScriptOutputType.INTEGER, "noscript-probe"))
                .isInstanceOf(RedisNoScriptException.class)
                .hasMessageStartingWith("NOSCRIPT")
                .satisfies(e -> System.out.println("NOSCRIPT as " + admin.infoField("server", "redis_version")
                        + " (valkey_version " + admin.infoField("server", "valkey_version") + ") words it: "
                        + e.getMessage()));
        assertThat(admin.commands().scriptExists(claim, release)).containsExactly(false, false);

        lock.lock(); // EVALSHA answered NOSCRIPT, then EVAL, which loads it
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();

        assertThat(lock.isLocked()).isFalse();
        assertThat(admin.commands().scriptExists(claim, release)).containsExactly(true, true);
    }
}
