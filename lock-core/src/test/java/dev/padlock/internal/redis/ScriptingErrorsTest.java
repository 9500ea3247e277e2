package dev.padlock.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.RedisCommandException;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Redis's answers about scripts, as Redis 6.2, 7.0, 7.2+ and Valkey word them (issue 40): the ones
 * the runner acts on, and the fix a caller is told with the others.
 */
class ScriptingErrorsTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "NOPERM this user has no permissions to run the 'evalsha' command or its subcommand", // 6.2
        "NOPERM this user has no permissions to run the 'evalsha' command", // 7.0
        "NOPERM User orders-app has no permissions to run the 'evalsha' command", // 7.2 and later, Valkey
        "NOPERM this user has no permissions to run the 'eval' command"})
    void evalRefusedByTheAclNamesTheRuleAndTheFunctionsMode(String answer) {
        RuntimeException translated = RedisErrors.translate(new CompletionException(new RedisCommandExecutionException(answer)),
                "lock_claim on 'orders:1'", "redis://127.0.0.1:6379");

        assertThat(translated).isExactlyInstanceOf(RedisCommandException.class)
                .hasMessageStartingWith("lock_claim on 'orders:1' at redis://127.0.0.1:6379 failed: Redis answered NOPERM")
                .hasMessageContaining("+eval +evalsha").hasMessageContaining("+@scripting")
                .hasMessageContaining("LockConfig.Scripting.FUNCTIONS").hasMessageContaining("+fcall");
    }

    @Test
    void fcallAndFunctionLoadRefusedNameTheirRules() {
        assertThat(ScriptingErrors.fix("NOPERM User a has no permissions to run the 'fcall' command"))
                .contains("Grant +fcall").doesNotContain("+eval");
        assertThat(ScriptingErrors.fix("NOPERM this user has no permissions to run the 'function|load' command"))
                .contains("+function|load").contains("administrator");
        assertThat(ScriptingErrors.fix("NOPERM User orders-app has no permissions to run the 'function|list' command"))
                .as("loading reads the library first").contains("+function|list +function|load").contains("administrator");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "ERR unknown command `FCALL`, with args beginning with: `padlock_0123456789ab_version`, ", // 6.2
        "ERR unknown command 'fcall', with args beginning with: 'padlock_0123456789ab_version' "})
    void aServerWithoutFunctionsIsToldSo(String answer) {
        assertThat(ScriptingErrors.fix(answer)).contains("no Redis Functions").contains("Redis 7")
                .contains("LockConfig.Scripting.EVAL");
    }

    @Test
    void otherAnswersGetNoFixAndAnAclRefusalInsideAScriptIsNotTakenForEval() {
        assertThat(ScriptingErrors.fix("WRONGTYPE Operation against a key holding the wrong kind of value")).isEmpty();
        assertThat(ScriptingErrors.fix("NOPERM this user has no permissions to access one of the keys used as arguments"))
                .isEmpty();
        assertThat(ScriptingErrors.fix("NOPERM this user has no permissions to run the 'hset' command script: "
                + "f_0123, on @user_script:3.")).isEmpty();
        assertThat(ScriptingErrors.fix("ERR unknown command 'frobnicate', with args beginning with: ")).isEmpty();
        assertThat(ScriptingErrors.fix(null)).isEmpty();
    }

    @Test
    void aMissingFunctionAndALibraryLoadedAlreadyAreRecognisedInRedisAndValkeyWords() {
        assertThat(RedisErrors.isFunctionMissing(new CompletionException(new RedisCommandExecutionException(
                "ERR Function not found")))).isTrue();
        assertThat(RedisErrors.isFunctionMissing(new RedisCommandExecutionException("ERR unknown command 'fcall'"))).isFalse();
        assertThat(RedisErrors.isLibraryLoaded(new RedisCommandExecutionException("ERR Library 'padlock_0123' already exists")))
                .isTrue();
        assertThat(RedisErrors.isLibraryLoaded(new RedisCommandExecutionException("ERR Library padlock_0123 already exists")))
                .as("Valkey").isTrue();
        assertThat(RedisErrors.isLibraryLoaded(new RedisCommandExecutionException("ERR Function padlock_x already exists")))
                .as("a function of another library: not ours loaded").isFalse();
    }
}
