package dev.padlock.sample.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.LettuceVersion;
import io.netty.util.Version;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Two instances of the sample, two Spring Boot application contexts in this JVM (each with its
 * own Padlock client, connections, watchdog, scheduler, leader initiator and web server, so that
 * they meet only on Redis, as two processes would, at half the start-up cost of two JVMs), on one
 * Redis this test may stop and start: the counter is exact, the ShedLock job never overlaps
 * itself, never two leaders, and the health endpoint goes DOWN within seconds of Redis stopping
 * and UP once it is back.
 */
@RedisTest(controllable = true)
class TwoInstancesTest {
    private static final int THREADS_PER_INSTANCE = 4;
    private static final int INCREMENTS_PER_THREAD = 50;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ConfigurableApplicationContext start(RedisEndpoint redis, String instance) {
        // as command-line arguments, which win over the application's own application.properties
        return new SpringApplicationBuilder(SampleApplication.class).run(
                "--padlock.uri=" + redis.uri(), "--server.port=0", "--sample.instance=" + instance,
                "--padlock.watchdog-timeout=3s", "--padlock.command-timeout=1s",
                "--sample.leader.heartbeat-millis=200", "--sample.report.every-millis=50",
                "--sample.report.work-millis=100");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void twoInstancesOnOneRedis(RedisEndpoint redis, RedisServerProcess server, RedisAdmin admin) throws Exception {
        long begun = System.nanoTime();
        try (ConfigurableApplicationContext a = start(redis, "a"); ConfigurableApplicationContext b = start(redis, "b")) {
            log("two instances started", begun);
            // each module compiles this test against its own Boot line and says which it expects
            assertThat(SpringBootVersion.getVersion()).startsWith(expected("padlock.sample.boot-version"));
            // and the Lettuce and Netty that Boot line manages (3.5: Lettuce 6 on Netty 4.1), no overrides
            assertThat(LettuceVersion.getVersion()).startsWith(expected("padlock.sample.lettuce-version"));
            assertThat(Version.identify().get("netty-common").artifactVersion())
                    .startsWith(expected("padlock.sample.netty-version"));
            assertThat(a.getBean("padlockLockRegistry").getClass().getSimpleName())
                    .isEqualTo(expected("padlock.sample.registry"));
            LeaderWatch leaders = new LeaderWatch(a.getBean(LockRegistryLeaderInitiator.class),
                    b.getBean(LockRegistryLeaderInitiator.class));
            try {
                theCounterIsExact(a, b, admin);
                theJobNeverOverlapsItself(admin);
                oneLeaderAtATimeAndAHandOver(leaders);
                healthFollowsRedis(a, b, server, leaders);
            } finally {
                leaders.close();
            }
            assertThat(leaders.twoLeaders).as("samples that saw both instances lead").hasValue(0);
            assertThat(leaders.samples.get()).as("the watch ran").isGreaterThan(100);
        }
        log("whole test", begun);
    }

    private void theCounterIsExact(ConfigurableApplicationContext a, ConfigurableApplicationContext b, RedisAdmin admin)
            throws Exception {
        long begun = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
        try {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (Counter counter : List.of(a.getBean(Counter.class), b.getBean(Counter.class))) {
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    all.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                            counter.increment();
                        }
                    }, threads));
                }
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertThat(admin.commands().get(SampleData.COUNTER)).as("no update lost")
                .isEqualTo(Integer.toString(2 * THREADS_PER_INSTANCE * INCREMENTS_PER_THREAD));
        log("counter: 400 read-modify-writes from 8 threads on 2 instances", begun);
    }

    private void theJobNeverOverlapsItself(RedisAdmin admin) {
        long begun = System.nanoTime();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<String> runs = admin.commands().lrange(SampleData.REPORT_RUNS, 0, -1);
            return runs.size() >= 12 && runs.stream().anyMatch(r -> r.startsWith("a "))
                    && runs.stream().anyMatch(r -> r.startsWith("b "));
        });
        List<long[]> runs = admin.commands().lrange(SampleData.REPORT_RUNS, 0, -1).stream()
                .map(r -> r.split(" ")).map(r -> new long[] {Long.parseLong(r[1]), Long.parseLong(r[2])})
                .sorted(Comparator.comparingLong(r -> r[0])).toList();
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i)[0]).as("run %d starts after run %d ended (Redis TIME, µs)", i, i - 1)
                    .isGreaterThan(runs.get(i - 1)[1]);
        }
        log("ShedLock: " + runs.size() + " runs on both instances, none overlapping", begun);
    }

    private void oneLeaderAtATimeAndAHandOver(LeaderWatch leaders) {
        long begun = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).until(() -> leaders.count() == 1);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(20)).until(() -> leaders.count() == 1);
        LockRegistryLeaderInitiator leader = leaders.leader();
        LockRegistryLeaderInitiator other = leader == leaders.a ? leaders.b : leaders.a;
        leader.getContext().yield();
        await().atMost(Duration.ofSeconds(10)).until(() -> other.getContext().isLeader());
        log("leader: one of two, handed over on yield", begun);
    }

    private void healthFollowsRedis(ConfigurableApplicationContext a, ConfigurableApplicationContext b,
            RedisServerProcess server, LeaderWatch leaders) {
        assertThat(health(a, "/actuator/health/padlock")).isEqualTo("UP");
        assertThat(get(a, "/actuator/health/padlock").body()).contains("\"redis\":\"reachable\"", "\"watchdog\":\"running\"");
        assertThat(health(b, "/actuator/health")).isEqualTo("UP");

        long stopped = System.nanoTime();
        server.stop();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() ->
                health(a, "/actuator/health/padlock").equals("DOWN") && health(b, "/actuator/health/padlock").equals("DOWN"));
        long downMillis = log("health DOWN after Redis stopped", stopped);
        assertThat(health(a, "/actuator/health")).as("the application's overall health").isEqualTo("DOWN");
        assertThat(get(b, "/actuator/health/padlock").body()).contains("\"status\":\"DOWN\"", "\"redis\":\"unreachable\"");
        assertThat(downMillis).as("DOWN within a few seconds").isLessThan(10_000);

        long restarted = System.nanoTime();
        server.restart();
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() ->
                health(a, "/actuator/health").equals("UP") && health(b, "/actuator/health").equals("UP"));
        log("health UP after Redis came back (same port, empty)", restarted);
        await().atMost(Duration.ofSeconds(20)).until(() -> leaders.count() == 1);
        log("a leader again", restarted);
    }

    /**
     * The status of one instance's health endpoint {@code path}, over HTTP, as a probe reads it: 200
     * is UP, 503 is DOWN (Actuator's mapping); anything else, the response.
     */
    private String health(ConfigurableApplicationContext instance, String path) {
        return switch (get(instance, path).statusCode()) {
            case 200 -> "UP";
            case 503 -> "DOWN";
            default -> get(instance, path).toString();
        };
    }

    private HttpResponse<String> get(ConfigurableApplicationContext instance, String path) {
        String port = instance.getEnvironment().getProperty("local.server.port");
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long log(String what, long sinceNanos) {
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
        System.out.printf("[%s] %s: %d ms%n", expected("padlock.sample.module"), what, millis);
        return millis;
    }

    /** What the module running this test expects (its pom's Surefire settings). */
    private static String expected(String property) {
        String value = System.getProperty(property);
        assertThat(value).as("system property %s, set by the sample module's pom", property).isNotBlank();
        return value;
    }

    /**
     * Samples both instances' leadership every 2 ms, a, b, a (and b, a, b): both leading is counted
     * only when the one read twice led at both reads, so that a hand-over between two reads is not
     * taken for two leaders. Spring Integration's initiator stops calling itself leader before it
     * unlocks, and starts after Redis granted the lock.
     */
    private static final class LeaderWatch implements AutoCloseable {
        final LockRegistryLeaderInitiator a;
        final LockRegistryLeaderInitiator b;
        final AtomicLong twoLeaders = new AtomicLong();
        final AtomicLong samples = new AtomicLong();
        private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();

        LeaderWatch(LockRegistryLeaderInitiator a, LockRegistryLeaderInitiator b) {
            this.a = a;
            this.b = b;
            watch.scheduleAtFixedRate(this::sample, 0, 2, TimeUnit.MILLISECONDS);
        }

        private void sample() {
            if (bothLead(a, b) || bothLead(b, a)) {
                twoLeaders.incrementAndGet();
            }
            samples.incrementAndGet();
        }

        private static boolean bothLead(LockRegistryLeaderInitiator first, LockRegistryLeaderInitiator second) {
            return first.getContext().isLeader() && second.getContext().isLeader() && first.getContext().isLeader();
        }

        int count() {
            return (a.getContext().isLeader() ? 1 : 0) + (b.getContext().isLeader() ? 1 : 0);
        }

        LockRegistryLeaderInitiator leader() {
            return a.getContext().isLeader() ? a : b;
        }

        @Override
        public void close() {
            watch.shutdownNow();
        }
    }
}
