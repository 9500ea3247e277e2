package dev.padlock.tests.behaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.internal.PadlockClient;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client registry: each client's entry under {@code padlock_client:<id>}, with a TTL, gone at close. */
@RedisTest
class ClientRegistryTest {
    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void aClientRecordsWhoItIsWithAnExpiryAndDeletesItAtClose(RedisAdmin admin) {
        LockClient client = clients.open(b -> b.applicationName("orders-service"));
        String key = LockKeys.client(client.getId());

        Map<String, String> entry = await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.commands().hgetall(key), m -> !m.isEmpty());
        assertThat(entry).containsEntry("id", client.getId())
                .containsEntry("application", "orders-service")
                .containsEntry("pid", Long.toString(ProcessHandle.current().pid()))
                .containsEntry("watchdogMillis", "30000")
                .containsKeys("host", "version", "started");
        assertThat(entry.get("version")).isEqualTo("0.1.0-SNAPSHOT");
        assertThat(admin.commands().pttl(key)).isBetween(1L, 60_000L);

        client.close();
        assertThat(admin.commands().exists(key)).isZero();
    }

    @Test
    void theRegistryCanBeTurnedOff(RedisAdmin admin) {
        LockClient on = clients.open();
        LockClient off = clients.open(b -> b.clientRegistry(false));
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(LockKeys.client(on.getId())) == 1L);
        // the entry of the client with the registry on is written first on the same server: by
        // the time it is there, a write by the other would have been sent too
        off.getLock(Clients.uniqueName("registry-off")).tryLock();
        assertThat(admin.commands().exists(LockKeys.client(off.getId()))).isZero();
    }

    /**
     * InterruptTest once counted a server's script calls around an interrupted acquire and found
     * one more than before: the second client's registration, sent at its start, had landed in
     * between. A client says when its first registration write has been answered; the tests'
     * {@code Clients.open} waits for it.
     */
    @Test
    void commandCountsRacedTheRegistration_registeredSaysWhenTheFirstWriteIsDone(RedisAdmin admin) throws Exception {
        for (int i = 0; i < 20; i++) {
            try (LockClient client = LockClient.create(LockConfig.builder().redisUri(admin.uri()).build())) {
                ((PadlockClient) client).registered().get(5, TimeUnit.SECONDS);
                assertThat(admin.commands().exists(LockKeys.client(client.getId()))).as("round %d", i).isEqualTo(1L);
            }
        }
        try (LockClient off = LockClient.create(LockConfig.builder().redisUri(admin.uri()).clientRegistry(false).build())) {
            assertThat(((PadlockClient) off).registered()).isDone();
        }
    }
}
