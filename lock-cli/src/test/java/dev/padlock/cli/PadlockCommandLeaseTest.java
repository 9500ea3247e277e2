package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 38: locks held by a lease ({@code acquire()}, {@code withLock}, Reactor, Kotlin, Spring's
 * leases), whose owner field {@code <clientId>:<ownerId>} carries a negative owner id. {@code ls}
 * used to leave them out, and {@code show} printed such a holder as {@code thread -1}.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandLeaseTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RedisAdmin admin;
    private Cli cli;
    private LockClient client;
    private final List<LockLease> leases = new ArrayList<>();

    @BeforeAll
    void start(RedisEndpoint redis, RedisAdmin admin) {
        this.admin = admin;
        this.cli = new Cli(redis.uri());
        this.client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).applicationName("lease-app").build());
    }

    @AfterAll
    void stop() {
        client.close();
    }

    @BeforeEach
    void noLeases() {
        leases.clear();
    }

    @AfterEach
    void releaseLeases() {
        leases.forEach(LockLease::close);
    }

    private LockLease hold(LockLease lease) {
        leases.add(lease);
        return lease;
    }

    /** The owner id in the one field of {@code name}'s hash other than {@code mode}, as Redis has it. */
    private long ownerIdOf(String name) {
        Map<String, String> hash = admin.commands().hgetall(name);
        String field = hash.keySet().stream().filter(f -> !f.equals("mode")).findFirst().orElseThrow();
        String owner = field.endsWith(":write") ? field.substring(0, field.length() - ":write".length()) : field;
        return Long.parseLong(owner.substring(owner.lastIndexOf(':') + 1));
    }

    /** How {@code ls} names an owner in its holder column: {@code ", lease -1,"} or {@code ", lease -1)"}. */
    private static String owner(String kind, long id) {
        return ", " + kind + " " + id + "[,)]";
    }

    @Test
    void lsListsLocksHeldByLeasesOfEveryKindAndNamesThemLeases() throws Exception {
        String prefix = "leased:" + UUID.randomUUID() + ":";
        hold(client.getLock(prefix + "plain").acquire());
        hold(client.getFairLock(prefix + "fair").acquire());
        hold(client.getReadWriteLock(prefix + "read").readLock().acquire());
        hold(client.getReadWriteLock(prefix + "write").writeLock().acquire());
        List<String> names = List.of(prefix + "fair", prefix + "plain", prefix + "read", prefix + "write");
        for (String name : names) {
            assertThat(ownerIdOf(name)).as("a lease's owner id in %s", name).isNegative();
        }

        Cli.Result text = cli.run("ls", prefix + "*");
        assertThat(text.status()).isZero();
        assertThat(text.out().lines()).as(text.out()).hasSize(names.size());
        for (String name : names) {
            assertThat(text.out().lines().filter(line -> line.startsWith(name + " ")).findFirst())
                    .as("the line of %s in%n%s", name, text.out())
                    .hasValueSatisfying(line -> assertThat(line).containsPattern(owner("lease", ownerIdOf(name)))
                            .doesNotContain("thread"));
        }

        JsonNode listed = JSON.readTree(cli.run("--json", "ls", prefix + "*").out());
        assertThat(listed.valueStream().map(lock -> lock.get("name").asText())).containsExactlyElementsOf(names);
        for (JsonNode lock : listed) {
            JsonNode holder = lock.get("holders").get(0);
            assertThat(holder.get("ownerKind").asText()).as("%s", holder).isEqualTo("lease");
            assertThat(holder.get("threadId").asLong()).as("%s", holder).isEqualTo(ownerIdOf(lock.get("name").asText()));
            assertThat(holder.get("field").asText()).startsWith(client.getId() + ":-");
        }
    }

    @Test
    void showNamesALeaseHolderALeaseWithItsHandleNotThreadMinusOne() throws Exception {
        String name = "leased:" + UUID.randomUUID();
        hold(client.getLock(name).acquire());
        long lease = ownerIdOf(name);

        Cli.Result text = cli.run("show", name);
        assertThat(text.status()).isZero();
        assertThat(text.out()).contains("holder " + client.getId() + ":" + lease,
                "handle   lease " + lease + " (a LockLease: owned by its handle, not a thread), holds 1")
                .doesNotContain("thread   ");

        JsonNode holder = JSON.readTree(cli.run("--json", "show", name).out()).get("holders").get(0);
        assertThat(holder.get("ownerKind").asText()).isEqualTo("lease");
        assertThat(holder.get("field").asText()).isEqualTo(client.getId() + ":" + lease);
        assertThat(holder.get("clientId").asText()).isEqualTo(client.getId());
        assertThat(holder.get("threadId").asLong()).isEqualTo(lease);
        assertThat(holder.get("holds").asLong()).isEqualTo(1);
    }

    @Test
    void aThreadHolderStaysAThreadBesideALeaseHolder() throws Exception {
        String prefix = "mixed:" + UUID.randomUUID() + ":";
        hold(client.getLock(prefix + "by-lease").acquire());
        RLock byThread = client.getLock(prefix + "by-thread");
        byThread.lock();
        try {
            long thread = Thread.currentThread().getId();
            assertThat(cli.run("show", prefix + "by-thread").out()).contains("thread   " + thread + ", holds 1")
                    .doesNotContain("handle ");
            JsonNode listed = JSON.readTree(cli.run("--json", "ls", prefix + "*").out());
            assertThat(listed.valueStream().map(lock -> lock.get("holders").get(0).get("ownerKind").asText()))
                    .containsExactly("lease", "thread");
            assertThat(cli.run("ls", prefix + "*").out()).containsPattern(owner("thread", thread))
                    .containsPattern(owner("lease", ownerIdOf(prefix + "by-lease")));
        } finally {
            byThread.unlock();
        }
    }
}
