package dev.padlock.tests.support;

import static org.awaitility.Awaitility.await;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Waits for a server to go quiet before a test counts its commands: the calls of the given
 * commands stay unchanged for a quiet period. For work a test cannot see end from outside (a
 * waiter's attempt after its subscription, a hand-off finishing on an I/O thread): once it has
 * gone quiet, what a measured window counts is the test's own doing.
 *
 * <p>Bounded: on a server that never goes quiet the wait fails after {@link #BOUND}. The quiet
 * period is what a test trusts, not what it sleeps: a count that moves restarts it.
 */
public final class Quiet {
    /** How long the counts must stay put, by default. */
    public static final Duration PERIOD = Duration.ofMillis(300);
    /** The most a wait for quiet takes before it fails. */
    public static final Duration BOUND = Duration.ofSeconds(30);

    private Quiet() {
    }

    /**
     * Waits until the calls of {@code commands} (lower case, as {@link CommandStats} names them) have
     * not changed for {@link #PERIOD}, and returns the stats taken at that point.
     */
    public static CommandStats commands(RedisAdmin admin, String... commands) {
        return commands(admin, PERIOD, commands);
    }

    /** As {@link #commands(RedisAdmin, String...)}, with a quiet period of {@code period}. */
    public static CommandStats commands(RedisAdmin admin, Duration period, String... commands) {
        if (commands.length == 0) {
            throw new IllegalArgumentException("name the commands to watch");
        }
        AtomicLong last = new AtomicLong(-1);
        AtomicLong changedAt = new AtomicLong(System.nanoTime());
        CommandStats[] quiet = new CommandStats[1];
        await("no new " + Arrays.toString(commands) + " for " + period.toMillis() + " ms")
                .atMost(BOUND).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    CommandStats stats = admin.commandStats();
                    long calls = Arrays.stream(commands).mapToLong(stats::calls).sum();
                    long now = System.nanoTime();
                    if (calls != last.getAndSet(calls)) {
                        changedAt.set(now);
                        return false;
                    }
                    quiet[0] = stats;
                    return now - changedAt.get() >= period.toNanos();
                });
        return quiet[0];
    }
}
