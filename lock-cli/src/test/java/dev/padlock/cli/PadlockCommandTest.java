package dev.padlock.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RFencedLock;
import dev.padlock.RLock;
import dev.padlock.RReadWriteLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * Every command of {@code padlock} against a real Redis server: locks of each kind held by
 * Padlock clients and by a real Redisson client, with waiters, checked field by field through
 * {@code --json}; {@code force-unlock} waking a waiter.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The most a condition wait or a woken waiter is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    private String uri;
    private RedisAdmin admin;
    private RedissonClient redisson;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    void start(RedisEndpoint redis, RedisAdmin admin) {
        this.uri = redis.uri();
        this.admin = admin;
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
    void noClients() {
        clients.clear();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient client(String application) {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).applicationName(application).build());
        clients.add(client);
        return client;
    }

    @Test
    void showsAPlainLocksHolderWithItsClientSinceAndLeaseAndTheClientsWaiting() throws Exception {
        String name = "orders:" + UUID.randomUUID();
        LockClient holder = client("orders-service");
        RLock lock = holder.getLock(name);
        lock.lockAsync(-1, TimeUnit.MILLISECONDS, 57L).get(5, SECONDS);
        CompletableFuture<Void> first = client("billing").getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L);
        CompletableFuture<Void> second = client("shipping").getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L);
        awaitListeners(LockKeys.unlockChannel(name), 2);
        // the holder's since is noted once its hold has lasted a moment (SinceNotes): what tells a
        // watchdog lease from a fixed one
        await("the holder's since noted").atMost(BOUND).pollInterval(Duration.ofMillis(100))
                .until(() -> !JSON.readTree(run("--json", "show", name).out()).get("holders").get(0)
                        .get("sinceMillis").isNull());

        Cli.Result result = run("--json", "show", name);

        assertThat(result.status()).isZero();
        JsonNode show = JSON.readTree(result.out());
        assertThat(show.get("name").asText()).isEqualTo(name);
        assertThat(show.get("kind").asText()).isEqualTo("plain");
        assertThat(show.get("held").asBoolean()).isTrue();
        // a watchdog lease of 30 s; no lower bound, which a renewal late on a busy machine could cross
        assertThat(show.get("ttlMillis").asLong()).isBetween(1L, 30_000L);
        assertThat(show.get("listeners").asLong()).isEqualTo(2);
        JsonNode h = show.get("holders").get(0);
        assertThat(show.get("holders")).hasSize(1);
        assertThat(h.get("field").asText()).isEqualTo(holder.getId() + ":57");
        assertThat(h.get("clientId").asText()).isEqualTo(holder.getId());
        assertThat(h.get("threadId").asLong()).isEqualTo(57);
        assertThat(h.get("holds").asLong()).isEqualTo(1);
        assertThat(h.get("lease").asText()).isEqualTo("watchdog");
        assertThat(h.get("heldForMillis").asLong()).isBetween(0L, 120_000L); // a sane age, however slow the waits
        assertThat(h.get("client").get("application").asText()).isEqualTo("orders-service");
        assertThat(h.get("client").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(h.get("client").get("version").asText()).isEqualTo("0.1.0-SNAPSHOT");
        // the two waiting clients, in the line their failed claims made on Redis
        JsonNode queue = await("both waiting clients in line").atMost(BOUND).pollInterval(Duration.ofMillis(100))
                .until(() -> JSON.readTree(run("--json", "show", name).out()).get("queue"),
                        q -> q != null && q.size() >= 2);
        List<String> waiting = new ArrayList<>();
        queue.forEach(w -> waiting.add(w.get("client").get("application").asText()));
        assertThat(waiting).containsExactlyInAnyOrder("billing", "shipping");

        Cli.Result text = run("show", name);
        assertThat(text.out()).contains(name + ": plain lock, held", "holder " + holder.getId() + ":57",
                "orders-service on ", "thread   57, holds 1", "watchdog, TTL", "listeners 2 subscriptions");

        lock.unlockAsync(57L).get(5, SECONDS);
        CompletableFuture.anyOf(first, second).get(BOUND.toSeconds(), SECONDS);
        Cli.Result later = run("--json", "show", name);
        assertThat(JSON.readTree(later.out()).get("holders").get(0).get("client").get("application").asText())
                .isIn("billing", "shipping");
    }

    @Test
    void showsAFairLocksQueueAFencedLocksTokenAndAReadWriteLocksReaders() throws Exception {
        String fair = "fair:" + UUID.randomUUID();
        LockClient a = client("fair-holder");
        a.getFairLock(fair).lockAsync(60, SECONDS, 1L).get(5, SECONDS); // a fixed lease no slow wait outlives
        LockClient b = client("fair-waiter");
        CompletableFuture<Void> waiter = b.getFairLock(fair).lockAsync(-1, TimeUnit.MILLISECONDS, 2L);
        awaitListeners(LockKeys.grantChannelPrefix(fair) + b.getId(), 1);
        await("its place in line").atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().llen(LockKeys.fairQueue(fair)) >= 1);

        JsonNode show = JSON.readTree(run("--json", "show", fair).out());
        assertThat(show.get("kind").asText()).isEqualTo("fair");
        assertThat(show.get("holders").get(0).get("lease").asText()).isEqualTo("fixed");
        assertThat(show.get("queue")).hasSize(1);
        JsonNode queued = show.get("queue").get(0);
        assertThat(queued.get("field").asText()).isEqualTo(b.getId() + ":2");
        assertThat(queued.get("client").get("application").asText()).isEqualTo("fair-waiter");
        assertThat(queued.get("deadlineMillis").isNull()).as("a fair place has no deadline").isTrue();
        assertThat(show.get("listeners").asLong()).isEqualTo(1);
        waiter.cancel(true);

        String fenced = "fenced:" + UUID.randomUUID();
        RFencedLock fencedLock = a.getFencedLock(fenced);
        long token = fencedLock.lockAndGetToken();
        show = JSON.readTree(run("--json", "show", fenced).out());
        assertThat(show.get("kind").asText()).isEqualTo("fenced");
        assertThat(show.get("token").asLong()).isEqualTo(token);
        fencedLock.unlock();

        String rw = "rw:" + UUID.randomUUID();
        RReadWriteLock readWrite = a.getReadWriteLock(rw);
        readWrite.readLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
        readWrite.readLock().lockAsync(20, SECONDS, 2L).get(5, SECONDS);
        show = JSON.readTree(run("--json", "show", rw).out());
        assertThat(show.get("kind").asText()).isEqualTo("read-write");
        assertThat(show.get("mode").asText()).isEqualTo("read");
        assertThat(show.get("holders")).hasSize(2);
        for (JsonNode reader : show.get("holders")) {
            assertThat(reader.get("role").asText()).isEqualTo("reader");
            assertThat(reader.get("client").get("application").asText()).isEqualTo("fair-holder");
            assertThat(reader.get("sinceMillis").isNull()).isFalse();
            long threadId = reader.get("threadId").asLong();
            assertThat(reader.get("lease").asText()).isEqualTo(threadId == 1 ? "watchdog" : "fixed");
            assertThat(reader.get("ttlMillis").asLong()).isBetween(1L, threadId == 1 ? 30_000L : 20_000L);
        }

        // issue 13: a writer waits in Padlock's line, with a deadline, for a grant on its client's channel
        CompletableFuture<Void> writer = b.getReadWriteLock(rw).writeLock().lockAsync(-1, TimeUnit.MILLISECONDS, 3L);
        await("the writer in line").atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().llen(LockKeys.readWriteLine(rw)) >= 1);
        show = JSON.readTree(run("--json", "show", rw).out());
        assertThat(show.get("queue")).hasSize(1);
        JsonNode writerInLine = show.get("queue").get(0);
        assertThat(writerInLine.get("field").asText()).isEqualTo(b.getId() + ":3:write");
        assertThat(writerInLine.get("threadId").asLong()).isEqualTo(3);
        assertThat(writerInLine.get("client").get("application").asText()).isEqualTo("fair-waiter");
        assertThat(writerInLine.get("deadlineMillis").isNull()).isFalse();
        assertThat(show.get("channels").toString()).contains(LockKeys.grantChannelPrefix(rw) + b.getId());
        writer.cancel(true);
    }

    @Test
    void aRedissonHolderIsAnUnknownClientWithoutSince() throws Exception {
        String name = "redisson:" + UUID.randomUUID();
        org.redisson.api.RLock lock = redisson.getLock(name);
        lock.lock();
        try {
            JsonNode show = JSON.readTree(run("--json", "show", name).out());
            assertThat(show.get("kind").asText()).isEqualTo("plain");
            JsonNode h = show.get("holders").get(0);
            assertThat(h.get("threadId").asLong()).isEqualTo(Thread.currentThread().getId());
            assertThat(h.get("client").isNull()).isTrue();
            assertThat(h.get("sinceMillis").isNull()).isTrue();
            assertThat(h.get("lease").asText()).isEqualTo("unknown");
            assertThat(run("show", name).out()).contains("not in Padlock's registry", "since    unknown");
        } finally {
            lock.unlock();
        }
        JsonNode free = JSON.readTree(run("--json", "show", name).out());
        assertThat(free.get("kind").asText()).isEqualTo("free");
        assertThat(free.get("holders")).isEmpty();
        assertThat(free.get("ttlMillis").asLong()).isEqualTo(-2);
    }

    @Test
    void forceUnlockAsksThenReleasesThroughTheScriptSoTheWaiterWakes() throws Exception {
        String name = "stuck:" + UUID.randomUUID();
        LockClient holder = client("stuck-holder");
        holder.getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
        CompletableFuture<Void> waiter = client("waiter").getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L);
        awaitListeners(LockKeys.unlockChannel(name), 1);

        Cli.Result declined = run("n\n", "force-unlock", name);
        assertThat(declined.status()).isEqualTo(1);
        assertThat(declined.out()).contains("Force-unlock '" + name + "'");
        assertThat(declined.err()).contains("nothing released");
        assertThat(admin.commands().hkeys(name)).containsExactly(holder.getId() + ":1");

        Cli.Result released = run("y\n", "force-unlock", name);
        assertThat(released.status()).isZero();
        assertThat(released.out()).contains("released '" + name + "' (plain lock)", holder.getId() + ":1", "stuck-holder");
        waiter.get(BOUND.toSeconds(), SECONDS); // woken by the force-unlock
        assertThat(JSON.readTree(run("--json", "show", name).out()).get("holders").get(0).get("client")
                .get("application").asText()).isEqualTo("waiter");

        JsonNode again = JSON.readTree(run("--json", "force-unlock", "--yes", name).out());
        assertThat(again.get("released").asBoolean()).isTrue();
        assertThat(again.get("holders").get(0).get("client").get("application").asText()).isEqualTo("waiter");
        JsonNode nothing = JSON.readTree(run("--json", "force-unlock", "--yes", name).out());
        assertThat(nothing.get("released").asBoolean()).isFalse();
        assertThat(admin.commands().exists(name, LockKeys.since(name))).isZero();
    }

    @Test
    void forceUnlockOfARedissonLockWakesARedissonWaiter() throws Exception {
        String name = "redisson-stuck:" + UUID.randomUUID();
        client("padlock-holder").getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
        // a lease that outlives the wake-up and the show that follows, however slow the machine
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> redisson.getLock(name).lock(60, SECONDS));
        awaitListeners(LockKeys.unlockChannel(name), 1);

        assertThat(run("force-unlock", "--yes", name).status()).isZero();

        waiter.get(BOUND.toSeconds(), SECONDS); // woken by the force-unlock
        JsonNode show = JSON.readTree(run("--json", "show", name).out());
        assertThat(show.get("holders").get(0).get("client").isNull()).as("Redisson: unknown client").isTrue();
    }

    @Test
    void lsListsHeldLocksByPatternAndClientsListsTheRegistryAndWatchRefreshes() throws Exception {
        String prefix = "ls-" + UUID.randomUUID() + ":";
        LockClient a = client("ls-app");
        a.getLock(prefix + "a").lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
        a.getReadWriteLock(prefix + "b").writeLock().lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
        admin.commands().hset(prefix + "not-a-lock", "colour", "blue");
        org.redisson.api.RLock foreign = redisson.getLock(prefix + "c");
        foreign.lock();
        try {
            JsonNode ls = JSON.readTree(run("--json", "ls", prefix + "*").out());
            assertThat(ls).hasSize(3);
            assertThat(ls.get(0).get("name").asText()).isEqualTo(prefix + "a");
            assertThat(ls.get(1).get("kind").asText()).isEqualTo("read-write");
            assertThat(ls.get(2).get("holders").get(0).get("client").isNull()).isTrue();
            assertThat(run("ls", prefix + "*").out().lines()).hasSize(3).allMatch(line -> line.startsWith(prefix));
            assertThat(run("ls", prefix + "nothing*").out()).contains("no held lock matches");
        } finally {
            foreign.unlock();
        }

        JsonNode registry = JSON.readTree(run("--json", "clients").out());
        List<String> ids = new ArrayList<>();
        registry.forEach(c -> ids.add(c.get("id").asText()));
        assertThat(ids).contains(a.getId());
        registry.forEach(c -> assertThat(c.get("ttlMillis").asLong()).isBetween(1L, 60_000L));
        assertThat(run("clients").out()).contains(a.getId(), "ls-app");

        Cli.Result watch = run("--json", "watch", prefix + "a", "--count", "3", "--interval-ms", "50");
        assertThat(watch.status()).isZero();
        assertThat(watch.out().lines()).hasSize(3);
        for (String line : watch.out().lines().toList()) {
            assertThat(JSON.readTree(line).get("holders").get(0).get("field").asText()).isEqualTo(a.getId() + ":1");
        }
        assertThat(run("watch", prefix + "a", "--count", "2", "--interval-ms", "10").out()).contains("ls-app");
    }

    @Test
    void showExitsNonZeroOnlyWhenRedisCannotBeReached() {
        Cli.Result free = run("show", "nobody:" + UUID.randomUUID());
        assertThat(free.status()).isZero();
        assertThat(free.out()).contains("free (not held)");

        Cli.Result unreachable = run("--uri", "redis://127.0.0.1:1", "--timeout-ms", "500", "show", "x");
        assertThat(unreachable.status()).isEqualTo(1);
        assertThat(unreachable.err()).contains("padlock: ", "127.0.0.1:1", "connection refused");
        assertThat(run("show").status()).as("usage").isEqualTo(2);
    }

    /** Issue 38: the command prints the engine's line, which names what failed before the address. */
    @Test
    void aConnectFailurePrintsWhatFailedFirst() {
        String noSuchDatabase = uri + "/9999";
        Cli.Result refused = run("--uri", noSuchDatabase, "--timeout-ms", "2000", "show", "x");

        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err().lines().findFirst()).hasValue("padlock: connect at " + noSuchDatabase
                + " failed: selecting database 9999 failed: Redis answered ERR DB index is out of range");
    }

    private void awaitListeners(String channel, long count) {
        await(count + " listener(s) on " + channel).atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> admin.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) >= count);
    }

    /** Runs {@code padlock --uri <this server> args}; a first argument ending in a newline is standard input. */
    private Cli.Result run(String... args) {
        return new Cli(uri).run(args);
    }
}
