package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.RedisUnavailableException;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An acquisition of a permit whose answer never came (Redis stalled past the command timeout):
 * the caller is told it failed, Redis runs the attempt once it resumes, and the permit it took
 * goes back by its id rather than stay taken, by nobody, until its lease ends.
 */
@RedisTest(controllable = true)
@Tag("faults")
class StalledPermitAttemptTest {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** Far longer than the test: a permit kept by nobody would stay taken all along. */
    private static final Duration LEASE = Duration.ofMinutes(10);
    private static final Duration HANG = Duration.ofSeconds(60);

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aPermitTakenByAnAttemptWhoseAnswerWasLostGoesBack(RedisServerProcess server, RedisAdmin admin) throws Exception {
        LockClient client = clients.open(b -> b.commandTimeout(COMMAND_TIMEOUT));
        String name = Clients.uniqueName("stalled-permit");
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire(LEASE).release(); // connected, the scripts loaded

        server.pause();
        try {
            assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ZERO, LEASE))
                    .isInstanceOf(RedisUnavailableException.class);
        } finally {
            server.resume();
        }
        // the attempt runs once Redis resumes, then the give-back sent after it
        await("the permit is back").atMost(HANG).pollInterval(Duration.ofMillis(20))
                .until(() -> admin.commands().zcard(LockKeys.permitLeases(name)) == 0
                        && "1".equals(admin.commands().get(name)));
        assertThat(semaphore.availablePermits()).isEqualTo(1);
    }
}
