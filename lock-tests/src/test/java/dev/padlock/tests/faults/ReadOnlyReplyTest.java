package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RedisUnavailableException;
import dev.padlock.tests.support.Clients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, defect 5: a write that reaches a node which has become a replica is answered
 * {@code READONLY}. That is a broken backend, never "not acquired": the call fails with a
 * {@link RedisUnavailableException} naming the address and the operation.
 */
@Tag("faults")
class ReadOnlyReplyTest {
    private RedisServers servers;
    private LockClient client;

    @BeforeEach
    void start() {
        servers = RedisServers.start(2);
        client = LockClient.create(LockConfig.builder().redisUri(servers.get(0).uri())
                .commandTimeout(Duration.ofSeconds(1)).build());
        try (RedisAdmin admin = RedisAdmin.connect(servers.get(0).uri())) {
            admin.commands().replicaof("127.0.0.1", servers.get(1).port()); // a replica behind the client's back
        }
    }

    @AfterEach
    void stop() {
        client.close();
        servers.close();
    }

    @Test
    void aLockOnANodeTurnedReplicaFailsAsUnavailableNotAsNotAcquired() {
        RLock lock = client.getLock(Clients.uniqueName("read-only"));
        String address = "127.0.0.1:" + servers.get(0).port();

        Throwable now = catchThrowable(lock::tryLock);
        Throwable waiting = catchThrowable(() -> lock.tryLock(2, 10, TimeUnit.SECONDS));

        for (Throwable failure : new Throwable[] {now, waiting}) {
            assertThat(failure).isExactlyInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining(address).hasMessageContaining("tryLock")
                    .hasMessageContaining("replica").hasMessageContaining("READONLY");
        }
    }
}
