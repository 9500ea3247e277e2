package dev.padlock.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The read-only commands of {@code padlock} ({@code show}, {@code ls}, {@code clients},
 * {@code watch}) as an ACL user with exactly the rule docs/operating/tls-and-acl.md gives for the
 * CLI: they work on every kind, and Redis denies nothing ({@code ACL LOG} stays empty).
 */
@RedisTest(controllable = true)
class PadlockCommandAclTest {
    /** The CLI's rule on one server, for locks named {@code orders:*}, as the ACL page has it. */
    static final String CLI_RULE = "resetkeys ~orders:* ~*{orders:* ~padlock_client:* resetchannels -@all"
            + " +scan +type +get +getrange +hgetall +lrange +zscore +pttl +time +pubsub|numsub +pubsub|channels";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void showLsClientsAndWatchNeedNoMoreThanTheDocumentedRule(RedisServerProcess server, RedisAdmin admin)
            throws Exception {
        setUser(admin, "orders-ops", "ops-secret", CLI_RULE);
        String uri = server.uri();
        String prefix = "orders:" + UUID.randomUUID() + ":";
        try (LockClient a = LockClient.connect(uri); LockClient b = LockClient.connect(uri)) {
            a.getLock(prefix + "plain").lockAsync(60, SECONDS, 1L).get(5, SECONDS);
            CompletableFuture<Void> plainWaiter = b.getLock(prefix + "plain").lockAsync(60, SECONDS, 2L);
            a.getFairLock(prefix + "fair").lockAsync(60, SECONDS, 1L).get(5, SECONDS);
            CompletableFuture<Void> fairWaiter = b.getFairLock(prefix + "fair").lockAsync(60, SECONDS, 2L);
            long token = a.getFencedLock(prefix + "fenced").lockAndGetTokenAsync(60_000, TimeUnit.MILLISECONDS, 1L)
                    .get(5, SECONDS);
            a.getReadWriteLock(prefix + "rw").readLock().lockAsync(60, SECONDS, 1L).get(5, SECONDS);
            CompletableFuture<Void> writer = b.getReadWriteLock(prefix + "rw").writeLock().lockAsync(60, SECONDS, 2L);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().llen(LockKeys.fairQueue(prefix + "fair")) >= 1
                    && admin.commands().llen(LockKeys.readWriteLine(prefix + "rw")) >= 1
                    && admin.commands().llen(LockKeys.waiterQueue(prefix + "plain")) >= 1);
            admin.commands().aclLogReset();

            Cli cli = new Cli(uri.replace("redis://", "redis://orders-ops:ops-secret@"));
            JsonNode plain = json(cli.run("--json", "show", prefix + "plain"));
            assertThat(plain.get("holders").get(0).get("field").asText()).isEqualTo(a.getId() + ":1");
            assertThat(plain.get("holders").get(0).get("client").isNull()).as("the registry is readable").isFalse();
            assertThat(plain.get("queue")).hasSize(1);
            assertThat(json(cli.run("--json", "show", prefix + "fair")).get("queue")).hasSize(1);
            assertThat(json(cli.run("--json", "show", prefix + "fenced")).get("token").asLong()).isEqualTo(token);
            JsonNode rw = json(cli.run("--json", "show", prefix + "rw"));
            assertThat(rw.get("mode").asText()).isEqualTo("read");
            assertThat(rw.get("queue")).hasSize(1);
            assertThat(json(cli.run("--json", "ls", prefix + "*"))).hasSize(4);
            assertThat(json(cli.run("--json", "clients")).toString()).contains(a.getId(), b.getId());
            Cli.Result watch = cli.run("watch", prefix + "plain", "--count", "2", "--interval-ms", "10");
            assertThat(watch.status()).as(watch.err()).isZero();

            assertThat(denials(admin)).as("ACL LOG: what Redis denied the CLI's user").isEmpty();
            plainWaiter.cancel(true);
            fairWaiter.cancel(true);
            writer.cancel(true);
        }
    }

    /**
     * Issue 40: {@code force-unlock --scripting functions} runs its script with {@code FCALL}, for a
     * user that may not run {@code EVAL}; in the default mode the same user is told which rule is
     * missing and that functions are the other way.
     */
    @Test
    void forceUnlockRunsAsAFunctionForAUserThatMayNotEval(RedisServerProcess server, RedisAdmin admin) throws Exception {
        assumeTrue(server.majorVersion() >= 7, () -> "Redis Functions need Redis 7: " + server.version());
        String rule = CLI_RULE.replace(" resetchannels -@all ", " resetchannels &redisson_lock__channel:{orders:*"
                + " &redisson_rwlock:{orders:* &padlock_grant:{orders:* -@all ")
                + " +fcall +function|list +function|load +exists +hget +subscribe +unsubscribe +set +incr +del +hset +hsetnx +hdel"
                + " +hexists +hincrby +hkeys +hlen +lindex +lpos +lpop +lrem +rpush +zadd +zrem +pexpire +ttl +publish";
        setUser(admin, "orders-admin", "admin-secret", rule);
        String uri = server.uri();
        String name = "orders:" + UUID.randomUUID() + ":stuck";
        try (LockClient a = LockClient.connect(uri); LockClient b = LockClient.connect(uri)) {
            a.getLock(name).lockAsync(60, SECONDS, 1L).get(5, SECONDS);
            CompletableFuture<Void> waiter = b.getLock(name).lockAsync(60, SECONDS, 2L);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().pubsubNumsub(LockKeys.unlockChannel(name))
                    .values().stream().mapToLong(Long::longValue).sum() >= 1);
            admin.commands().aclLogReset();
            Cli cli = new Cli(uri.replace("redis://", "redis://orders-admin:admin-secret@"));

            Cli.Result refused = cli.run("force-unlock", "--yes", name);
            assertThat(refused.status()).isEqualTo(1);
            assertThat(refused.err()).contains("NOPERM", "+eval +evalsha", "LockConfig.Scripting.FUNCTIONS");
            assertThat(admin.commands().hkeys(name)).containsExactly(a.getId() + ":1");

            admin.commands().aclLogReset();
            Cli.Result released = cli.run("--scripting", "functions", "force-unlock", "--yes", name);
            assertThat(released.status()).as(released.err()).isZero();
            waiter.get(30, SECONDS); // woken by the force-unlock
            assertThat(denials(admin)).as("ACL LOG: what Redis denied the user").isEmpty();
            assertThat(admin.commands().functionList("padlock")).as("the library padlock").hasSize(1);
            b.getLock(name).unlockAsync(2L).get(5, SECONDS);
        }
    }

    private static JsonNode json(Cli.Result result) {
        assertThat(result.status()).as(result.err()).isZero();
        return JSON.readTree(result.out());
    }

    /** {@code ACL SETUSER user reset on >password <rules...>} through {@code admin}. */
    private static void setUser(RedisAdmin admin, String user, String password, String rules) {
        List<String> words = new ArrayList<>(List.of("SETUSER", user, "reset", "on", ">" + password));
        words.addAll(List.of(rules.trim().split("\\s+")));
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        words.forEach(args::add);
        admin.commands().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
    }

    /**
     * What Redis denied since the last {@code ACL LOG RESET}, leaving out Lettuce's connect-time
     * {@code CLIENT SETINFO} (sent, and refused without harm).
     */
    private static List<String> denials(RedisAdmin admin) {
        List<String> denied = new ArrayList<>();
        for (Map<String, Object> entry : admin.commands().aclLog()) {
            if (!"client".equals(entry.get("object"))) {
                denied.add(entry.get("reason") + " " + entry.get("object"));
            }
        }
        return denied;
    }
}
