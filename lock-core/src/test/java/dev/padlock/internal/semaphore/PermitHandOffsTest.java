package dev.padlock.internal.semaphore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.internal.base.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hand-off of counted permits on its own, with waiters that are plain flags and a manual
 * clock: who is offered permits, how many go to Redis, and the budget of a chain.
 */
class PermitHandOffsTest {
    private static final String NAME = "sem";
    /** The budget's bounds, as the locks' {@code HandOffBudget} has them. */
    private static final int MAX_HAND_OFFS = 32;
    private static final long MAX_CHAIN_MILLIS = 100;

    private final ManualTimer clock = new ManualTimer();
    private final PermitHandOffs handOffs = new PermitHandOffs(clock);

    /** A waiter: parked or not, open or ended, and whether it took permits. */
    private static final class Waiter implements PermitHandOffs.Waiter {
        boolean parked = true;
        boolean open = true;
        int taken;
        int offers;

        @Override
        public boolean isParked() {
            return parked;
        }

        @Override
        public boolean takeHandOff() {
            offers++;
            if (!open) {
                return false;
            }
            open = false;
            taken++;
            return true;
        }
    }

    private Waiter waiting(int permits) {
        Waiter waiter = new Waiter();
        handOffs.add(NAME, permits, waiter);
        return waiter;
    }

    @Test
    void aReleaseWithNobodyWaitingGoesToRedis() {
        assertThat(handOffs.handOff(NAME, 2)).isEqualTo(2);
        assertThat(handOffs.semaphores()).isZero();
    }

    @Test
    void aParkedWaiterTakesThePermitAndNothingGoesToRedis() {
        Waiter waiter = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).isZero();

        assertThat(waiter.taken).isEqualTo(1);
        assertThat(handOffs.handOff(NAME, 1)).as("it is no longer registered").isEqualTo(1);
    }

    @Test
    void theOldestParkedWaiterGoesFirst() {
        Waiter first = waiting(1);
        Waiter second = waiting(1);

        handOffs.handOff(NAME, 1);

        assertThat(first.taken).isEqualTo(1);
        assertThat(second.taken).isZero();
    }

    @Test
    void aWaiterWithAnAttemptInFlightIsNotOffered() {
        Waiter attempting = waiting(1);
        attempting.parked = false;
        Waiter parked = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).isZero();

        assertThat(attempting.offers).isZero();
        assertThat(parked.taken).isEqualTo(1);
        attempting.parked = true;
        assertThat(handOffs.handOff(NAME, 1)).as("still registered").isZero();
        assertThat(attempting.taken).isEqualTo(1);
    }

    @Test
    void aWaiterForMorePermitsThanReleasedIsPassedOver() {
        Waiter three = waiting(3);
        Waiter one = waiting(1);

        assertThat(handOffs.handOff(NAME, 2)).as("one handed to the waiter for 1, one to Redis").isEqualTo(1);

        assertThat(three.offers).isZero();
        assertThat(one.taken).isEqualTo(1);
    }

    @Test
    void aReleaseOfSeveralPermitsServesSeveralWaiters() {
        Waiter two = waiting(2);
        Waiter three = waiting(3);
        Waiter one = waiting(1);

        assertThat(handOffs.handOff(NAME, 3)).isZero();

        assertThat(two.taken).isEqualTo(1);
        assertThat(three.offers).as("3 do not fit in the 1 left").isZero();
        assertThat(one.taken).isEqualTo(1);
    }

    @Test
    void aWaiterForThreeTakesAReleaseOfThree() {
        Waiter three = waiting(3);

        assertThat(handOffs.handOff(NAME, 3)).isZero();

        assertThat(three.taken).isEqualTo(1);
    }

    @Test
    void aWaiterWhoseWaitEndedTakesNothingAndThePermitGoesToRedis() {
        Waiter ended = waiting(1);
        ended.open = false; // cancelled, or its deadline passed, before it was unregistered

        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);

        assertThat(ended.offers).isEqualTo(1);
        assertThat(ended.taken).isZero();
        assertThat(handOffs.handOff(NAME, 1)).as("offered once, then forgotten").isEqualTo(1);
        assertThat(ended.offers).isEqualTo(1);
    }

    @Test
    void aPermitAWaiterWhoseWaitEndedRefusesGoesToTheNextWaiter() {
        Waiter ended = waiting(1);
        ended.open = false;
        Waiter next = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).isZero();

        assertThat(ended.taken).isZero();
        assertThat(next.taken).isEqualTo(1);
    }

    @Test
    void aRemovedWaiterIsNotOffered() {
        Waiter gone = waiting(1);
        handOffs.remove(NAME, gone);

        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);

        assertThat(gone.offers).isZero();
        assertThat(handOffs.semaphores()).isZero();
    }

    @Test
    void waitersOfAnotherSemaphoreAreNotOffered() {
        Waiter other = new Waiter();
        handOffs.add("other", 1, other);

        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);

        assertThat(other.offers).isZero();
    }

    @Test
    void after32HandOffsInARowAReleaseGoesToRedisAndTheNextStartsAFreshChain() {
        for (int i = 0; i < MAX_HAND_OFFS; i++) {
            waiting(1);
            assertThat(handOffs.handOff(NAME, 1)).as("hand-off %d", i + 1).isZero();
        }
        Waiter next = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).as("the budget is spent").isEqualTo(1);
        assertThat(next.offers).isZero();

        assertThat(handOffs.handOff(NAME, 1)).as("a fresh chain after the release on Redis").isZero();
        assertThat(next.taken).isEqualTo(1);
    }

    @Test
    void aChainEndsWhenItHasRunFor100Milliseconds() {
        waiting(1);
        assertThat(handOffs.handOff(NAME, 1)).isZero();
        clock.advance(MAX_CHAIN_MILLIS - 1);
        waiting(1);
        assertThat(handOffs.handOff(NAME, 1)).isZero();
        clock.advance(1);
        Waiter late = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);

        assertThat(late.offers).isZero();
        assertThat(handOffs.handOff(NAME, 1)).isZero();
        assertThat(late.taken).isEqualTo(1);
    }

    @Test
    void aReleaseOnRedisWithNobodyToServeEndsTheChain() {
        for (int i = 0; i < MAX_HAND_OFFS - 1; i++) {
            waiting(1);
            handOffs.handOff(NAME, 1);
        }
        assertThat(handOffs.handOff(NAME, 1)).as("nobody waits").isEqualTo(1);
        assertThat(handOffs.semaphores()).as("forgotten once the chain ended with nobody waiting").isZero();

        List<Waiter> served = new ArrayList<>();
        for (int i = 0; i < MAX_HAND_OFFS; i++) {
            Waiter waiter = waiting(1);
            assertThat(handOffs.handOff(NAME, 1)).as("hand-off %d of a fresh chain", i + 1).isZero();
            served.add(waiter);
        }
        assertThat(served).allMatch(waiter -> waiter.taken == 1);
    }

    /**
     * Threads of one client that take turns (one parks, another's release hands it the permit,
     * which parks again) leave the registry empty between hand-offs: the chain must go on all the
     * same, else one client keeps the permits for ever.
     */
    @Test
    void waitersComingAndGoingDoNotResetTheChain() {
        for (int i = 0; i < MAX_HAND_OFFS; i++) {
            waiting(1);
            assertThat(handOffs.handOff(NAME, 1)).isZero();
            assertThat(handOffs.semaphores()).as("kept while the chain goes on").isEqualTo(1);
        }
        waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).isEqualTo(1);
    }

    @Test
    void aRefusedOfferCountsAgainstTheBudget() {
        for (int i = 0; i < MAX_HAND_OFFS; i++) {
            waiting(1).open = false;
        }
        Waiter open = waiting(1);

        assertThat(handOffs.handOff(NAME, 1)).as("32 offers refused: the budget is spent").isEqualTo(1);

        assertThat(open.offers).isZero();
        assertThat(handOffs.handOff(NAME, 1)).as("a fresh chain after the release on Redis").isZero();
        assertThat(open.taken).isEqualTo(1);
    }

    @Test
    void theBudgetIsPerSemaphore() {
        for (int i = 0; i < MAX_HAND_OFFS; i++) {
            waiting(1);
            handOffs.handOff(NAME, 1);
        }
        Waiter other = new Waiter();
        handOffs.add("other", 1, other);

        assertThat(handOffs.handOff("other", 1)).isZero();

        assertThat(other.taken).isEqualTo(1);
    }
}
