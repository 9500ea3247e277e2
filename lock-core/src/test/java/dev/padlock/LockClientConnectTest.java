package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures of {@link LockClient#create} that need no Redis: a refused connect (nothing listens on
 * port 1 of the loopback interface), a silent TCP server, and URIs that are not Redis URIs.
 */
class LockClientConnectTest {
    private static final String REFUSING = "redis://127.0.0.1:1";
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    /**
     * A bound that only catches a hang: a refused connect fails in milliseconds, but Netty's first
     * start on a loaded 2-core machine (with a coverage agent) can take seconds.
     */
    private static final Duration FEW_SECONDS = Duration.ofSeconds(30);

    private static final ExecutorService CALLER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "connect-test-caller");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stopCaller() {
        CALLER.shutdownNow();
    }

    @AfterEach
    void noLettuceThreadIsLeftBehind() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream()
                    .filter(Thread::isAlive)
                    .map(Thread::getName)
                    .filter(name -> name.startsWith("lettuce-"))
                    .collect(Collectors.toList());
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        fail("Lettuce threads still running after a failed connect: " + left);
    }

    /** Runs {@code action} on another thread and returns what it threw, failing when it takes too long. */
    private static Throwable thrownWithin(Duration limit, Supplier<LockClient> action) {
        CompletableFuture<LockClient> call = CompletableFuture.supplyAsync(action, CALLER);
        try {
            LockClient unexpected = call.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            unexpected.close();
            return fail("connected to %s, which should not be possible", unexpected);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            return fail("still blocked after %s", limit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }

    private static LockConfig refusing() {
        return LockConfig.builder().redisUri(REFUSING).commandTimeout(COMMAND_TIMEOUT).build();
    }

    @Test
    void refusedConnectGivesRedisUnavailableNamingTheAddress() {
        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(refusing()));

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageContaining("connect");
    }

    @Test
    void refusedConnectWithDefaultSettingsFailsToo() {
        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.connect(REFUSING));

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class).hasMessageContaining("127.0.0.1:1");
    }

    @Test
    void refusedClusterSeedsGiveRedisUnavailableNamingTheSeeds() {
        LockConfig config = LockConfig.builder()
                .clusterUris("redis://127.0.0.1:1", "redis://127.0.0.1:2")
                .commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("127.0.0.1:1").hasMessageContaining("127.0.0.1:2");
    }

    @Test
    void refusedConnectDoesNotShowThePassword() {
        LockConfig config = LockConfig.builder().redisUri("redis://:secret@127.0.0.1:1")
                .commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("127.0.0.1:1").hasMessageNotContaining("secret");
    }

    @Test
    void nullArgumentsAreNamed() {
        assertThatThrownBy(() -> LockClient.connect(null))
                .isInstanceOf(NullPointerException.class).hasMessage("redisUri");
        assertThatThrownBy(() -> LockClient.create(null))
                .isInstanceOf(NullPointerException.class).hasMessage("config");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "not a uri",
        "localhost:6379",
        "127.0.0.1:6379",
        "http://127.0.0.1:6379",
        "redis://",
        "redis://127.0.0.1:99999",
        "redis-sentinel://127.0.0.1:26379",
    })
    void invalidUriFailsWithIllegalArgumentExceptionAtCreate(String uri) {
        LockConfig config = LockConfig.builder().redisUri(uri).commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining(uri);
    }

    @Test
    void invalidClusterSeedFailsWithIllegalArgumentExceptionAtCreate() {
        LockConfig config = LockConfig.builder().clusterUris("redis://127.0.0.1:7000", "not a uri")
                .commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a uri");
    }

    @Test
    void nonNumericPortFailsWithIllegalArgumentException() {
        LockConfig config = LockConfig.builder().redisUri("redis://127.0.0.1:notaport")
                .commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isExactlyInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void invalidUriMessageDoesNotShowThePassword() {
        LockConfig config = LockConfig.builder().redisUri("redis://:secret@host:6379 x")
                .commandTimeout(COMMAND_TIMEOUT).build();

        Throwable thrown = thrownWithin(FEW_SECONDS, () -> LockClient.create(config));

        assertThat(thrown).isExactlyInstanceOf(IllegalArgumentException.class);
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain("secret");
        }
    }

    /**
     * A server that accepts TCP connections and never answers, as a hung Redis or a wrong service
     * behind the port would. The contract bounds a call by twice the command timeout.
     */
    @Test
    void silentServerFailsWithinTwiceTheCommandTimeout() throws IOException {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(server.accept());
                    }
                } catch (IOException closed) {
                    // the server socket was closed: the test is over
                }
            }, "silent-server");
            acceptor.setDaemon(true);
            acceptor.start();
            String address = "127.0.0.1:" + server.getLocalPort();
            LockConfig config = LockConfig.builder().redisUri("redis://" + address)
                    .commandTimeout(COMMAND_TIMEOUT).build();

            // 2 x command timeout, plus slack for Netty's first start
            Throwable thrown = thrownWithin(COMMAND_TIMEOUT.multipliedBy(2).plusSeconds(2),
                    () -> LockClient.create(config));

            assertThat(thrown).isInstanceOf(RedisUnavailableException.class).hasMessageContaining(address);
        } finally {
            for (Socket s : accepted) {
                s.close(); // lets a still-blocked connect fail now rather than after Lettuce's 60 s
            }
        }
    }
}
