package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.PermitLease;
import dev.padlock.RPermitExpirableSemaphore;
import dev.padlock.RSemaphore;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Issue 41: {@code show} of a semaphore: its free permits, and a permit-expirable one's permits in use. */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandSemaphoreTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Cli cli;
    private LockClient client;

    @BeforeAll
    void start(RedisEndpoint redis) {
        cli = new Cli(redis.uri());
        client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).build());
    }

    @AfterAll
    void stop() {
        client.close();
    }

    @Test
    void showTellsASemaphoresFreePermits() throws Exception {
        String name = "exports-" + UUID.randomUUID();
        RSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(4);
        semaphore.acquire(3);
        Cli.Result text = cli.run("show", name);
        assertThat(text.status()).isZero();
        assertThat(text.out()).startsWith(name + ": semaphore, 1 permit free").contains("redisson_sc:{" + name + "}");
        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        assertThat(show.get("kind").asText()).isEqualTo("semaphore");
        assertThat(show.get("freePermits").asLong()).isEqualTo(1);
        assertThat(show.get("permits")).isEmpty();
    }

    @Test
    void showTellsEachPermitInUseAndWhenItsLeaseEnds() throws Exception {
        String name = "partners-" + UUID.randomUUID();
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(3);
        PermitLease fixed = semaphore.acquire(Duration.ofMinutes(5));
        PermitLease watched = semaphore.acquire();
        Cli.Result text = cli.run("show", name);
        assertThat(text.out()).startsWith(name + ": permit-expirable semaphore, 1 permit free, 2 in use")
                .contains("permit   " + fixed.permitId() + ", lease ends in")
                .contains("permit   " + watched.permitId());
        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        assertThat(show.get("kind").asText()).isEqualTo("permit-expirable semaphore");
        assertThat(show.get("permits")).hasSize(2);
        for (JsonNode permit : show.get("permits")) {
            assertThat(permit.get("leaseEndsInMillis").asLong()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(5).toMillis());
        }
        fixed.release();
        watched.release();
    }
}
