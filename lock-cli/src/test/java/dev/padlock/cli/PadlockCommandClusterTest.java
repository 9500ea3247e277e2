package dev.padlock.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The commands on a 3-master Redis Cluster: {@code ls} and {@code clients} across every master,
 * {@code show} with the listeners of the lock's slot (sharded pub/sub on Redis 7), and
 * {@code force-unlock} waking a waiter.
 */
class PadlockCommandClusterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The most a condition wait or a woken waiter is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyCommandSeesLocksOnEveryMaster() throws Exception {
        try (LockClient holder = client("cluster-holder"); LockClient waiting = client("cluster-waiter")) {
            String prefix = "cluster-" + UUID.randomUUID() + ":";
            List<String> names = new ArrayList<>();
            Set<RedisServerProcess> masters = new HashSet<>();
            for (int i = 0; masters.size() < 3 && i < 200; i++) {
                String name = prefix + i;
                if (masters.add(cluster.masterForKey(name))) {
                    names.add(name);
                    holder.getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(5, SECONDS);
                }
            }
            assertThat(masters).hasSize(3);

            JsonNode ls = JSON.readTree(run("--json", "ls", prefix + "*"));
            assertThat(ls).hasSize(3);
            ls.forEach(lock -> assertThat(lock.get("holders").get(0).get("client").get("application").asText())
                    .isEqualTo("cluster-holder"));

            String contested = names.get(2);
            CompletableFuture<Void> waiter = waiting.getLock(contested).lockAsync(-1, TimeUnit.MILLISECONDS, 7L);
            JsonNode show = awaitListener(contested);
            assertThat(show.get("kind").asText()).isEqualTo("plain");
            assertThat(show.get("holders").get(0).get("field").asText()).isEqualTo(holder.getId() + ":1");
            // the holder's since is noted once its hold has lasted a moment (SinceNotes)
            await("the holder's since noted").atMost(BOUND).pollInterval(Duration.ofMillis(100))
                    .until(() -> !JSON.readTree(run("--json", "show", contested)).get("holders").get(0)
                            .get("sinceMillis").isNull());

            // each registry entry lives on its own key's master, written apart from the locks: wait for both
            await("both clients in the registry").atMost(BOUND).pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        List<String> ids = new ArrayList<>();
                        JSON.readTree(run("--json", "clients")).forEach(c -> ids.add(c.get("id").asText()));
                        return ids.contains(holder.getId()) && ids.contains(waiting.getId());
                    });

            assertThat(run("force-unlock", "--yes", contested)).contains("released '" + contested + "'");
            waiter.get(BOUND.toSeconds(), SECONDS); // woken by the force-unlock
            assertThat(JSON.readTree(run("--json", "show", contested)).get("holders").get(0).get("field").asText())
                    .isEqualTo(waiting.getId() + ":7");
            waiting.getLock(contested).unlockAsync(7L).get(5, SECONDS);
            for (String name : names) {
                holder.getLock(name).forceUnlock();
                assertThat(JSON.readTree(run("--json", "show", name)).get("kind").asText()).isEqualTo("free");
            }
            assertThat(JSON.readTree(run("--json", "show", contested)).get("ttlMillis").asLong()).isEqualTo(-2);
            assertThat(LockKeys.since(contested)).startsWith("padlock_since:{");
        }
    }

    /** Shows {@code name} until a listener is counted on its channel (the waiter subscribed), at most 30 s. */
    private JsonNode awaitListener(String name) {
        return await("a listener on " + name).atMost(BOUND).pollInterval(Duration.ofMillis(20))
                .until(() -> JSON.readTree(run("--json", "show", name)), show -> show.get("listeners").asLong() >= 1);
    }

    private static LockClient client(String application) {
        return LockClient.create(LockConfig.builder().clusterUris(cluster.seedUris().toArray(String[]::new))
                .applicationName(application).build());
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var line = PadlockCommand.commandLine(new PadlockCommand());
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("--cluster", String.join(",", cluster.seedUris())));
        all.addAll(List.of(args));
        int status = line.execute(all.toArray(String[]::new));
        assertThat(status).as("padlock %s: %s", String.join(" ", args), err).isZero();
        return out.toString();
    }
}
