package dev.padlock.bench;

import dev.padlock.testing.RedisAdmin;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * What every scenario shares: the servers, admin connections to them, and the run's timing.
 *
 * @param servers the server or cluster both libraries use, with an admin connection to each master
 *     (INFO, KEYS, ECHO, GET, DEL)
 * @param measured how long each scenario is measured per library
 * @param warmUp how long each scenario runs before that, not measured
 * @param calibration how long the {@code MONITOR} pass of a throughput scenario runs
 */
record BenchContext(BenchServers servers, Duration measured, Duration warmUp, Duration calibration) {

    /**
     * A tag unique to one scenario run of one library; every key that run creates contains
     * it (lock names are {@code bench:<tag>...}, Redisson's latches contain the lock name).
     */
    static String newTag(String scenarioId, LockLibrary library) {
        return scenarioId + "-" + library.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The name of lock {@code index} of the run tagged {@code tag}. */
    static String lockName(String tag, int index) {
        return "bench:" + tag + ":" + index;
    }

    /** What the libraries connect to. */
    RedisTarget target() {
        return servers.target();
    }

    /** One admin connection per master (one on a single server). */
    List<RedisAdmin> admins() {
        return servers.admins();
    }

    /**
     * {@code count} lock names of the run tagged {@code tag}, spread evenly over a cluster's
     * masters ({@link BenchServers#lockNames}); {@link #lockName} 0 to count - 1 on one server.
     */
    List<String> lockNames(String tag, int count) {
        return servers.lockNames(tag, count);
    }

    /**
     * {@code count} lock names of the run tagged {@code tag} sharing one hash tag per master
     * ({@link BenchServers#hashTaggedLockNames}).
     */
    List<String> hashTaggedLockNames(String tag, int count) {
        return servers.hashTaggedLockNames(tag, count);
    }

    /**
     * Keys containing {@code tag} other than the lock keys given ({@code KEYS} on every master: a
     * bench server only).
     */
    long keysLeft(String tag, Collection<String> lockNames) {
        List<String> keys = servers.keys("*" + tag + "*");
        return keys.stream().filter(key -> !lockNames.contains(key)).count();
    }

    /**
     * Deletes {@code key} on the master that holds it and returns its string value from just
     * before; null when it was absent.
     */
    String getAndDelete(String key) {
        RedisAdmin admin = admins().get(servers.masterOf(key));
        String value = admin.commands().get(key);
        admin.commands().del(key);
        return value;
    }

    /**
     * Those of {@code lockNames}, all of the run tagged {@code tag}, whose key is on Redis
     * ({@code KEYS} on every master: a bench server only).
     */
    List<String> lockKeysPresent(String tag, Collection<String> lockNames) {
        Set<String> names = new HashSet<>(lockNames);
        return servers.keys("*" + tag + "*").stream().filter(names::contains).sorted().collect(Collectors.toList());
    }

    /** Deletes {@code keys}, each on the master that holds it. */
    void delete(Collection<String> keys) {
        for (String key : keys) {
            admins().get(servers.masterOf(key)).commands().del(key);
        }
    }

    /** Sleeps for {@code duration}. */
    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
