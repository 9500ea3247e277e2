package dev.padlock.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 23: {@code show} counts who waits, of every kind, as far as Redis knows it: real
 * Padlock clients with real threads holding and waiting (and a real Redisson fair waiter), and
 * the command's count checked against them.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandWaitingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Generous: the machine may be busy with another build. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    private String uri;
    private RedisAdmin admin;
    private Cli cli;
    private RedissonClient redisson;
    private final List<LockClient> clients = new ArrayList<>();
    private Owners owners;

    @BeforeAll
    void start(RedisEndpoint redis, RedisAdmin admin) {
        this.uri = redis.uri();
        this.admin = admin;
        this.cli = new Cli(uri);
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1);
        redisson = Redisson.create(config);
    }

    @AfterAll
    void stop() {
        redisson.shutdown(0, 5, SECONDS);
    }

    @BeforeEach
    void newOwners() {
        clients.clear();
        owners = new Owners();
    }

    @AfterEach
    void closeOwnersThenClients() throws InterruptedException {
        owners.close();
        clients.forEach(LockClient::close);
    }

    private LockClient client(String application) {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).applicationName(application).build());
        clients.add(client);
        return client;
    }

    @Test
    void showCountsEveryWaitingClientOfAPlainLock() throws Exception {
        String name = "plain-waiting:" + UUID.randomUUID();
        LockClient a = client("plain-holder");
        LockClient b = client("plain-waiter");
        RLock lockOfA = a.getLock(name);
        RLock lockOfB = b.getLock(name);
        owners.hold("a-1 holds", lockOfA::lockInterruptibly, lockOfA::unlock);
        // three threads of two clients wait: one of the holder's own client, two of another
        owners.waitFor("a-2 waits", lockOfA::lockInterruptibly, lockOfA::unlock);
        owners.waitFor("b-1 waits", lockOfB::lockInterruptibly, lockOfB::unlock);
        owners.waitFor("b-2 waits", lockOfB::lockInterruptibly, lockOfB::unlock);
        // what Redis can see of them: b in line (one place per client), and both clients listening for grants
        await().atMost(BOUND).until(() -> admin.commands().llen(LockKeys.waiterQueue(name)) == 1
                && grantListeners(name).equals(Set.of(a.getId(), b.getId())));

        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        JsonNode waiting = show.get("waiting");
        assertThat(waiting).as("the waiting owners, as Redis knows them: %s", show).isNotNull();
        assertThat(waiting.get("clients").asLong()).isEqualTo(2);
        assertThat(waiting.get("owners").isNull()).as("Redis cannot see the threads within a client").isTrue();
        assertThat(waiting.get("note").asText()).contains("threads within a client wait locally");
        Set<String> ids = new HashSet<>();
        waiting.get("byClient").forEach(c -> ids.add(c.get("clientId").asText()));
        assertThat(ids).containsExactlyInAnyOrder(a.getId(), b.getId());
        for (JsonNode c : waiting.get("byClient")) {
            boolean ofB = c.get("clientId").asText().equals(b.getId());
            assertThat(c.get("inLine").asBoolean()).as("only b has a place in line").isEqualTo(ofB);
            assertThat(c.get("client").get("application").asText()).isEqualTo(ofB ? "plain-waiter" : "plain-holder");
        }

        String text = cli.run("show", name).out();
        assertThat(text).contains("2 clients waiting (threads within a client wait locally; Redis sees one place per client)")
                .doesNotContain("1 waiter");
    }

    @Test
    void showCountsEveryWaitingOwnerOfAFairLockPadlocksAndRedissons() throws Exception {
        String name = "fair-waiting:" + UUID.randomUUID();
        LockClient a = client("fair-holder");
        LockClient b = client("fair-waiter-b");
        LockClient c = client("fair-waiter-c");
        RLock lockOfA = a.getFairLock(name);
        owners.hold("a-1 holds", lockOfA::lockInterruptibly, lockOfA::unlock);
        RLock lockOfB = b.getFairLock(name);
        RLock lockOfC = c.getFairLock(name);
        owners.waitFor("b-1 waits", lockOfB::lockInterruptibly, lockOfB::unlock);
        owners.waitFor("b-2 waits", lockOfB::lockInterruptibly, lockOfB::unlock);
        owners.waitFor("c-1 waits", lockOfC::lockInterruptibly, lockOfC::unlock);
        org.redisson.api.RLock redissonFair = redisson.getFairLock(name);
        owners.waitFor("redisson waits", redissonFair::lockInterruptibly, redissonFair::unlock);
        // a fair lock has one place per owner: three in Padlock's line, one in Redisson's queue
        await().atMost(BOUND).until(() -> admin.commands().llen(LockKeys.fairQueue(name)) == 3
                && admin.commands().llen(LockKeys.redissonFairQueue(name)) == 1);

        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        assertThat(show.get("kind").asText()).isEqualTo("fair");
        JsonNode waiting = show.get("waiting");
        assertThat(waiting).as("the waiting owners: %s", show).isNotNull();
        assertThat(waiting.get("owners").asLong()).as("every owner has its own place").isEqualTo(4);
        assertThat(show.get("queue")).hasSize(4);
        List<String> places = new ArrayList<>();
        show.get("queue").forEach(w -> places.add(w.get("place").asText()));
        assertThat(places).containsExactly("fair line", "fair line", "fair line", "Redisson's fair queue");
        assertThat(cli.run("show", name).out()).contains("4 owners waiting");
    }

    @Test
    void showCountsEveryWaitingOwnerOfAReadWriteLock() throws Exception {
        String name = "rw-waiting:" + UUID.randomUUID();
        LockClient a = client("rw-holder");
        LockClient b = client("rw-readers");
        LockClient c = client("rw-writer");
        RLock writeOfA = a.getReadWriteLock(name).writeLock();
        owners.hold("a-1 writes", writeOfA::lockInterruptibly, writeOfA::unlock);
        RReadWriteLock rwOfB = b.getReadWriteLock(name);
        owners.waitFor("b-1 reads", rwOfB.readLock()::lockInterruptibly, rwOfB.readLock()::unlock);
        owners.waitFor("b-2 reads", rwOfB.readLock()::lockInterruptibly, rwOfB.readLock()::unlock);
        RLock writeOfC = c.getReadWriteLock(name).writeLock();
        owners.waitFor("c-1 writes", writeOfC::lockInterruptibly, writeOfC::unlock);
        // one place per owner: two readers in the hall, one writer in line
        await().atMost(BOUND).until(() -> admin.commands().hlen(LockKeys.readWriteReaders(name)) == 2
                && admin.commands().llen(LockKeys.readWriteLine(name)) == 1);

        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        JsonNode waiting = show.get("waiting");
        assertThat(waiting).as("the waiting owners: %s", show).isNotNull();
        assertThat(waiting.get("owners").asLong()).isEqualTo(3);
        assertThat(waiting.get("clients").asLong()).isEqualTo(2);
        assertThat(cli.run("show", name).out()).contains("3 owners waiting (1 writer in line, 2 readers in the hall; one place per owner)");
    }

    /** The clients listening on their grant channel for {@code name}. */
    private Set<String> grantListeners(String name) {
        String prefix = LockKeys.grantChannelPrefix(name);
        Set<String> ids = new HashSet<>();
        for (String channel : admin.commands().pubsubChannels(prefix + "*")) {
            ids.add(channel.substring(prefix.length()));
        }
        return ids;
    }
}
