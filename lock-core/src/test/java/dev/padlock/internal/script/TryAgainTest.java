package dev.padlock.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** {@link TryAgain}'s pauses and window, on a manual timer and clock. */
class TryAgainTest {
    private final ManualTimer timer = new ManualTimer();

    @Test
    void theReplyIsRecognisedWrappedOrNot() {
        RedisCommandExecutionException refusal =
                new RedisCommandExecutionException("TRYAGAIN Multiple keys request during rehashing of slot");
        assertThat(TryAgain.isTryAgain(refusal)).isTrue();
        assertThat(TryAgain.isTryAgain(new CompletionException(refusal))).isTrue();
        assertThat(TryAgain.isTryAgain(new RedisCommandExecutionException("ERR TRYAGAIN is not at the start"))).isFalse();
        assertThat(TryAgain.isTryAgain(new RedisCommandExecutionException("NOSCRIPT No matching script"))).isFalse();
    }

    @Test
    void pausesDoubleUpToTheLongestAndEndWithTheWindow() {
        TryAgain tryAgain = new TryAgain(timer, timer, 1_000);
        long deadline = tryAgain.deadline();
        List<Long> pauses = new ArrayList<>();
        for (int refusals = 1;; refusals++) {
            long before = timer.nanoTime();
            CompletableFuture<Void> pause = tryAgain.pause(refusals, deadline);
            if (pause == null) {
                break;
            }
            while (!pause.isDone()) {
                timer.advance(1);
            }
            pauses.add((timer.nanoTime() - before) / 1_000_000);
        }
        assertThat(pauses).startsWith(5L, 10L, 20L, 40L, 80L, 160L, 200L).allMatch(millis -> millis <= 200);
        long total = pauses.stream().mapToLong(Long::longValue).sum();
        assertThat(total).as("sent again within the window, and until its last pause").isBetween(800L, 1_000L);
    }
}
