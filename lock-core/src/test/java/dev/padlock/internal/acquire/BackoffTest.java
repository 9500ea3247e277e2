package dev.padlock.internal.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one exponential back-off of the wait loop and the give-backs. */
class BackoffTest {

    @Test
    void eachPauseIsTwiceTheLastUpToTheLargest() {
        Backoff backoff = new Backoff(10, 200);

        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            pauses.add(backoff.next());
        }

        assertThat(pauses).containsExactly(10L, 20L, 40L, 80L, 160L, 200L, 200L);
    }

    @Test
    void aResetStartsAgainFromTheFirstPause() {
        Backoff backoff = new Backoff(10, 200);
        backoff.next();
        backoff.next();

        backoff.reset();

        assertThat(backoff.next()).isEqualTo(10);
    }

    @Test
    void aPauseWithJitterLiesInTheUpperHalfOfItsStep() {
        for (int run = 0; run < 200; run++) {
            Backoff backoff = new Backoff(1, 128);
            long step = 1;
            for (int i = 0; i < 9; i++) {
                assertThat(backoff.nextWithJitter(dev.padlock.internal.base.EngineClock.SYSTEM)).isBetween(step / 2, step);
                step = Math.min(128, step * 2);
            }
        }
    }
}
