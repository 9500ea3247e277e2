package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 23: {@code show} and {@code ls} know ShedLock's locks, the string keys lock-shedlock's
 * {@link PadlockLockProvider} writes (value: the holder's token {@code <clientId>:<sequence>}),
 * held here by that provider itself.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandShedLockTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private String uri;
    private RedisAdmin admin;
    private Cli cli;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    void start(RedisEndpoint redis, RedisAdmin admin) {
        this.uri = redis.uri();
        this.admin = admin;
        this.cli = new Cli(uri);
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

    private static SimpleLock lock(PadlockLockProvider provider, String job, Duration atMost) {
        return provider.lock(new LockConfiguration(ClockProvider.now(), job, atMost, Duration.ZERO)).orElseThrow();
    }

    @Test
    void showRecognisesAShedLockLockAndItsHolder() throws Exception {
        LockClient app = client("report-service");
        String job = "report-" + UUID.randomUUID();
        SimpleLock hold = lock(new PadlockLockProvider(app), job, Duration.ofMinutes(10));
        String key = "shedlock:" + job;
        String token = admin.commands().get(key);
        assertThat(token).startsWith(app.getId() + ":");

        JsonNode show = JSON.readTree(cli.run("--json", "show", key).out());
        assertThat(show.get("kind").asText()).isEqualTo("shedlock");
        assertThat(show.get("held").asBoolean()).isTrue();
        long ttl = show.get("ttlMillis").asLong();
        assertThat(ttl).isBetween(1L, 600_000L);
        assertThat(show.get("untilMillis").asLong()).isEqualTo(show.get("redisTimeMillis").asLong() + ttl);
        assertThat(show.get("holders")).hasSize(1);
        JsonNode h = show.get("holders").get(0);
        assertThat(h.get("field").asText()).isEqualTo(token);
        assertThat(h.get("clientId").asText()).isEqualTo(app.getId());
        assertThat(h.get("holds").asLong()).isEqualTo(1);
        assertThat(h.get("client").get("application").asText()).isEqualTo("report-service");
        assertThat(show.has("waiting")).as("ShedLock has no waiters").isFalse();

        String text = cli.run("show", key).out();
        assertThat(text).contains(key + ": ShedLock lock, held", "holder " + token, "report-service on ",
                "until    ").doesNotContain("not a lock", "listeners");

        hold.unlock();
        assertThat(JSON.readTree(cli.run("--json", "show", key).out()).get("kind").asText()).isEqualTo("free");

        // a holder whose client is gone from the registry: its id is UUID-shaped, so still ShedLock's
        String gone = "shedlock:gone-" + UUID.randomUUID();
        admin.commands().set(gone, UUID.randomUUID() + ":3", SetArgs.Builder.px(60_000));
        JsonNode orphan = JSON.readTree(cli.run("--json", "show", gone).out());
        assertThat(orphan.get("kind").asText()).isEqualTo("shedlock");
        assertThat(orphan.get("holders").get(0).get("client").isNull()).isTrue();
        assertThat(orphan.get("holders").get(0).get("clientNote").asText()).contains("not in Padlock's registry");

        String other = "shedlock:not-a-token-" + UUID.randomUUID();
        admin.commands().set(other, "blue");
        assertThat(cli.run("show", other).out()).contains("not a lock");
    }

    @Test
    void lsListsShedLockLocksUnderAnyPrefix() throws Exception {
        LockClient app = client("nightly-jobs");
        String run = UUID.randomUUID().toString();
        SimpleLock byDefault = lock(new PadlockLockProvider(app), "ls-" + run, Duration.ofMinutes(5));
        String prefix = "jobs-" + run + ":";
        SimpleLock byPrefix = lock(new PadlockLockProvider(app, prefix), "nightly", Duration.ofMinutes(5));
        admin.commands().set(prefix + "note", "hello");
        admin.commands().set(prefix + "pair", "12:34"); // a colon and a number, but no client's id

        JsonNode defaults = JSON.readTree(cli.run("--json", "ls", "shedlock:ls-" + run + "*").out());
        assertThat(defaults).hasSize(1);
        assertThat(defaults.get(0).get("name").asText()).isEqualTo("shedlock:ls-" + run);
        assertThat(defaults.get(0).get("kind").asText()).isEqualTo("shedlock");

        JsonNode prefixed = JSON.readTree(cli.run("--json", "ls", prefix + "*").out());
        assertThat(prefixed).hasSize(1);
        assertThat(prefixed.get(0).get("name").asText()).isEqualTo(prefix + "nightly");
        assertThat(prefixed.get(0).get("holders").get(0).get("client").get("application").asText())
                .isEqualTo("nightly-jobs");

        assertThat(cli.run("ls", prefix + "*").out().lines()).singleElement()
                .satisfies(line -> assertThat(line).startsWith(prefix + "nightly").contains("shedlock", "nightly-jobs"));
        byDefault.unlock();
        byPrefix.unlock();
        assertThat(cli.run("ls", prefix + "*").out()).contains("no held lock matches");
    }
}
