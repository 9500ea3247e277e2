package dev.padlock.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import dev.padlock.tests.support.Clients;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 37, case 8: a fair waiter that gave up while Redis refused writes kept its place in line.
 * Redisson's {@code testAcquireFailedNotCalledOnRedisTimeout}, translated: one holder, two waiters,
 * then {@code CLIENT PAUSE 30000 WRITE}; the waiter whose wait ends during the pause is told, and
 * once Redis takes writes again its place is out of {@code padlock_fair_queue:{name}}, and the line
 * ends empty, as Redisson's does.
 */
@RedisTest(controllable = true)
@Tag("faults")
class FairWaiterUnderWritePauseTest {
    @RegisterExtension
    final Clients clients = new Clients();

    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** The most a condition is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final long QUITTER = 7;

    @AfterEach
    void tearDown(RedisAdmin admin) throws Exception {
        client(admin.commands(), "UNPAUSE");
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaiterWhoseWaitEndsDuringAWritePauseLeavesTheLine(RedisAdmin admin) throws Exception {
        String name = Clients.uniqueName("fair-write-pause");
        String line = LockKeys.fairQueue(name);
        RLock holder = clients.open().getFairLock(name);
        RLock patient = clients.open().getFairLock(name);
        LockClient quitting = clients.open(b -> b.commandTimeout(Duration.ofSeconds(1)));
        String quitterPlace = quitting.getId() + ":" + QUITTER + ":";

        holder.lock(60, TimeUnit.SECONDS);
        CompletableFuture<Boolean> patientGot = CompletableFuture.supplyAsync(() -> tryLockThenUnlock(patient), pool);
        await().atMost(BOUND).until(() -> admin.commands().llen(line) == 1);
        long start = System.nanoTime();
        // the asynchronous call is told only once its leave was answered or went unanswered
        CompletableFuture<Boolean> quit = quitting.getFairLock(name).tryLockAsync(3_000, 10_000,
                TimeUnit.MILLISECONDS, QUITTER);
        await().atMost(BOUND).until(() -> admin.commands().llen(line) == 2);
        assertThat(admin.commands().lindex(line, 1)).as("the quitter is second in line").startsWith(quitterPlace);

        // as after a restart or a failover: the leave's EVALSHA, answered NOSCRIPT only after its
        // timeout, is not followed by its EVAL, so the leave surely does not land during the pause
        admin.scriptFlush();
        client(admin.commands(), "PAUSE", "30000", "WRITE");
        Object outcome;
        try {
            outcome = quit.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            outcome = e.getCause();
        }
        System.out.printf("the quitter's tryLock during the write pause: %s after %d ms%n", outcome,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertThat(outcome).as("not acquired").isNotEqualTo(Boolean.TRUE);
        client(admin.commands(), "UNPAUSE");

        // the patient waiter keeps the line alive: a place left behind would stay as long as it waits
        await().atMost(BOUND).until(() -> admin.commands().lrange(line, 0, -1).stream()
                .noneMatch(place -> place.startsWith(quitterPlace)));
        assertThat(admin.commands().lrange(line, 0, -1)).as("the patient waiter keeps its place").hasSize(1);
        assertThat(admin.commands().hkeys(name)).as("the quitter holds nothing")
                .noneMatch(field -> field.startsWith(quitting.getId() + ":"));

        holder.unlock();
        assertThat(patientGot.get(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the patient waiter's turn").isTrue();
        assertThat(admin.commands().exists(name, line)).as("lock and line both gone").isZero();
    }

    /** {@code CLIENT <args>} on the admin connection. */
    private static void client(RedisCommands<String, String> admin, String... args) {
        CommandArgs<String, String> command = new CommandArgs<>(StringCodec.UTF8);
        for (String arg : args) {
            command.add(arg);
        }
        admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), command);
    }

    private static boolean tryLockThenUnlock(RLock lock) {
        try {
            if (!lock.tryLock(60, TimeUnit.SECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        lock.unlock();
        return true;
    }
}
