package dev.padlock.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.PadlockException;
import dev.padlock.RedisCommandException;
import dev.padlock.RedisUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class RedisErrorsTest {

    private static final String OPERATION = "tryLock orders:42";
    private static final String ADDRESS = "redis://10.1.2.3:6379";

    @Test
    void commandTimeoutBecomesRedisUnavailableNamingOperationAndAddress() {
        RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("Command timed out after 3 second(s)");

        RuntimeException translated = RedisErrors.translate(timeout, OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining(OPERATION).hasMessageContaining(ADDRESS)
                .hasMessageContaining("timed out")
                .hasCause(timeout);
    }

    @Test
    void connectionFailureBecomesRedisUnavailable() {
        RedisConnectionException refused = new RedisConnectionException("Unable to connect to 10.1.2.3:6379");

        RuntimeException translated = RedisErrors.translate(refused, "connect", ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("connect").hasMessageContaining(ADDRESS)
                .hasCause(refused);
    }

    @Test
    void ioExceptionBecomesRedisUnavailable() {
        IOException reset = new IOException("Connection reset by peer");

        RuntimeException translated = RedisErrors.translate(reset, OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining(ADDRESS).hasMessageContaining("Connection reset by peer");
    }

    @Test
    void readOnlyReplyBecomesRedisUnavailableNotACommandError() {
        RedisCommandExecutionException readOnly = new RedisCommandExecutionException(
                "READONLY You can't write against a read only replica.");

        RuntimeException translated = RedisErrors.translate(new CompletionException(readOnly), OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining(OPERATION).hasMessageContaining(ADDRESS)
                .hasMessageContaining("replica").hasMessageContaining("READONLY")
                .hasCause(readOnly);
    }

    @Test
    void readOnlyInsideAScriptErrorIsRecognised() {
        assertThat(RedisErrors.isReadOnly(new RedisCommandExecutionException("ERR Error running script (call to "
                + "f_0123): @user_script:12: @user_script: 12: -READONLY You can't write against a read only replica.")))
                .isTrue();
        assertThat(RedisErrors.isReadOnly(new RedisCommandExecutionException(
                "WRONGTYPE Operation against a key holding the wrong kind of value"))).isFalse();
        assertThat(RedisErrors.isReadOnly(new RedisCommandExecutionException("ERR no such key NOTREADONLY"))).isFalse();
    }

    @Test
    void redisErrorReplyBecomesRedisCommandExceptionWithRedisText() {
        RedisCommandExecutionException wrongType = new RedisCommandExecutionException(
                "WRONGTYPE Operation against a key holding the wrong kind of value");

        RuntimeException translated = RedisErrors.translate(wrongType, OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisCommandException.class)
                .isInstanceOf(PadlockException.class)
                .hasMessageContaining("WRONGTYPE").hasMessageContaining(OPERATION).hasMessageContaining(ADDRESS)
                .hasCause(wrongType);
    }

    @Test
    void completionExceptionIsUnwrapped() {
        RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("timed out");

        RuntimeException translated = RedisErrors.translate(new CompletionException(timeout), OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class).hasCause(timeout);
    }

    @Test
    void executionExceptionIsUnwrapped() {
        RedisCommandExecutionException busy = new RedisCommandExecutionException("BUSY Redis is busy running a script");

        RuntimeException translated = RedisErrors.translate(new ExecutionException(busy), OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisCommandException.class)
                .hasMessageContaining("BUSY").hasCause(busy);
    }

    @Test
    void nestedWrappersAreUnwrapped() {
        RedisConnectionException refused = new RedisConnectionException("refused");
        Throwable wrapped = new CompletionException(new ExecutionException(new CompletionException(refused)));

        RuntimeException translated = RedisErrors.translate(wrapped, OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(RedisUnavailableException.class).hasCause(refused);
    }

    @Test
    void illegalMonitorStateExceptionPassesThroughUnchanged() {
        IllegalMonitorStateException notHeld = new IllegalMonitorStateException("not held by this thread");

        assertThat(RedisErrors.translate(notHeld, OPERATION, ADDRESS)).isSameAs(notHeld);
        assertThat(RedisErrors.translate(new CompletionException(notHeld), OPERATION, ADDRESS)).isSameAs(notHeld);
    }

    @Test
    void padlockExceptionsPassThroughUnchanged() {
        RedisUnavailableException already = new RedisUnavailableException("connect at x failed", null);

        assertThat(RedisErrors.translate(new CompletionException(already), OPERATION, ADDRESS)).isSameAs(already);
    }

    @Test
    void misuseAndCancellationPassThroughUnchanged() {
        IllegalStateException closed = new IllegalStateException("the LockClient is closed");
        IllegalArgumentException bad = new IllegalArgumentException("name must not be empty");
        CancellationException cancelled = new CancellationException();

        assertThat(RedisErrors.translate(closed, OPERATION, ADDRESS)).isSameAs(closed);
        assertThat(RedisErrors.translate(bad, OPERATION, ADDRESS)).isSameAs(bad);
        assertThat(RedisErrors.translate(new ExecutionException(cancelled), OPERATION, ADDRESS)).isSameAs(cancelled);
    }

    @Test
    void anythingElseBecomesAPadlockExceptionNamingOperationAndAddress() {
        ArithmeticException odd = new ArithmeticException("/ by zero");

        RuntimeException translated = RedisErrors.translate(odd, OPERATION, ADDRESS);

        assertThat(translated).isExactlyInstanceOf(PadlockException.class)
                .hasMessageContaining(OPERATION).hasMessageContaining(ADDRESS).hasCause(odd);
    }

    @Test
    void unwrapReturnsTheInnermostCause() {
        RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("timed out");

        assertThat(RedisErrors.unwrap(new CompletionException(new ExecutionException(timeout)))).isSameAs(timeout);
    }

    @Test
    void unwrapLeavesOtherExceptionsAlone() {
        RuntimeException wrapper = new RuntimeException(new RedisCommandTimeoutException("timed out"));

        assertThat(RedisErrors.unwrap(wrapper)).isSameAs(wrapper);
    }

    @Test
    void unwrapKeepsAWrapperWithoutCause() {
        CompletionException empty = new CompletionException("no cause", null);

        assertThat(RedisErrors.unwrap(empty)).isSameAs(empty);
    }
}
