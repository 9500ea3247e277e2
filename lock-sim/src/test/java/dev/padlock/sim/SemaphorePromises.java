package dev.padlock.sim;

import dev.padlock.sim.engine.World;
import dev.padlock.sim.redis.ModelRedis;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The promises of "Semaphores" (CONTRACT.md), checked after every event of an episode that runs
 * semaphores, against the model Redis:
 *
 * <ul>
 *   <li><b>No more in use than there are</b>: the counted semaphore's permits told held (and not
 *       yet sent back, or kept by a holder that died) plus its free count on Redis are at most the
 *       total, and the count is never below 0; for the permit-expirable one, likewise with the
 *       permits told held whose {@code safeFor()} is above 0; and Redis itself keeps its leases
 *       plus its free count equal to the total.
 *   <li><b>A permit told held is on Redis</b>: while its owner reads {@code safeFor() > 0} at t
 *       (after every event, as it is told, and before it releases), the permit's id is in
 *       {@code {<name>}:timeout} with an end no earlier than t + safeFor(); ids told held at once
 *       are distinct.
 *   <li><b>Nobody waits long while permits are free</b>: see {@link #noWaitWhileFree}.
 *   <li><b>No permit lost for good</b>: once every owner let go and every lease ended, the
 *       permit-expirable semaphore has no lease left that has not ended, and its free count plus
 *       its ended leases (which the next call gives back) is the total. The counted semaphore's
 *       free count is the total less the permits of holders that died holding them, less at most
 *       the permits of the calls whose answer a client lost (an {@code RSemaphore}'s permits have
 *       no id: such a permit may stay taken, as the user guide says), and never more.
 * </ul>
 */
final class SemaphorePromises {
    private final Episode episode;
    private final World world;
    private final int countedTotal;
    private final int leasedTotal;
    private int countedHeld;
    private int leasesHeld;
    /** Since when (virtual nanos) each semaphore has had n permits free, by "name n"; absent: not now. */
    private final Map<String, Long> freeSince = new java.util.HashMap<>();
    /** How long a waiter may wait while permits are free: a look interval, two command timeouts and a second. */
    private final long freeWaitBound;
    /** Counted permits whose holder died holding them: they stay taken. */
    private long abandoned;

    SemaphorePromises(Episode episode, int countedTotal, int leasedTotal) {
        this.episode = episode;
        this.world = episode.world;
        this.countedTotal = countedTotal;
        this.leasedTotal = leasedTotal;
        long commandTimeout = episode.config.commandTimeoutMillis();
        this.freeWaitBound = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
                Math.max(2 * commandTimeout, 1_000) + 2 * commandTimeout + 1_000);
    }

    /** Sets up both semaphores on the model Redis, as an operator's {@code trySetPermits} did before. */
    void setUp() {
        ModelRedis model = episode.server.model();
        model.execute("SET", SimConfig.SEMAPHORE, Integer.toString(countedTotal));
        model.execute("SET", SimConfig.PERMITS, Integer.toString(leasedTotal));
        episode.log("semaphores: " + SimConfig.SEMAPHORE + " with " + countedTotal + " permits, " + SimConfig.PERMITS
                + " with " + leasedTotal);
    }

    /** Acquisitions told held: counted permits, permit leases. */
    int[] held() {
        return new int[] {countedHeld, leasesHeld};
    }

    /** An owner was told it holds what it asked for. */
    void told(PermitOwner owner) {
        if (owner.lease != null) {
            leasesHeld++;
            readSafeFor(owner.lease);
        } else {
            countedHeld++;
        }
        afterStep(episode.server.model().snapshot());
    }

    /** A holder died holding {@code counted} permits of the counted semaphore (and maybe a permit lease). */
    void abandoned(int counted) {
        abandoned += counted;
    }

    /** The owner reads {@code held.handle.safeFor()} now. */
    void readSafeFor(PermitOwner.PermitHold held) {
        onRedis(episode.server.model().snapshot(), held);
    }

    /** Whether the permit is on Redis as long as its owner reads it is safe; its safe time (0: not checked). */
    private long onRedis(SortedMap<String, ModelRedis.Entry> keys, PermitOwner.PermitHold held) {
        if (held.releaseSent) {
            return 0;
        }
        long safe = held.handle.safeFor().toNanos();
        if (safe <= 0) {
            return 0;
        }
        long now = world.nanoTime();
        Double score = leases(keys).get(held.handle.permitId());
        long ends = score == null ? -1 : (long) ((score - World.EPOCH_MILLIS) * 1_000_000L);
        if (ends < now + safe) {
            episode.fail("permit " + held.handle.permitId() + " reads safeFor() = " + Promises.millis(safe) + " ms at "
                    + Promises.millis(now) + " ms, but Redis " + (score == null ? "does not have it"
                    : "ends its lease at " + Promises.millis(ends) + " ms") + " (" + keys.get(leasesKey()) + ")");
        }
        return safe;
    }

    private static String leasesKey() {
        return "{" + SimConfig.PERMITS + "}:timeout";
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Double> leases(SortedMap<String, ModelRedis.Entry> keys) {
        ModelRedis.Entry entry = keys.get(leasesKey());
        return entry == null || !"zset".equals(entry.type()) ? Map.of() : (Map<String, Double>) entry.value();
    }

    private static long count(SortedMap<String, ModelRedis.Entry> keys, String key) {
        ModelRedis.Entry entry = keys.get(key);
        return entry == null ? 0 : Long.parseLong((String) entry.value());
    }

    /** After every event. */
    void afterStep(SortedMap<String, ModelRedis.Entry> keys) {
        long free = count(keys, SimConfig.SEMAPHORE);
        long inUse = 0;
        for (PermitOwner owner : episode.permitOwners) {
            inUse += owner.countedHeld;
        }
        if (free < 0 || inUse + abandoned + free > countedTotal) {
            episode.fail("semaphore " + SimConfig.SEMAPHORE + " of " + countedTotal + " permits: " + inUse
                    + " told held and not given back, " + abandoned + " kept by holders that died, " + free
                    + " free on Redis: " + owners());
        }
        long leasedFree = count(keys, SimConfig.PERMITS);
        Map<String, Double> leases = leases(keys);
        if (leasedFree < 0 || leasedFree + leases.size() != leasedTotal) {
            episode.fail("semaphore " + SimConfig.PERMITS + " of " + leasedTotal + " permits: " + leasedFree
                    + " free and " + leases.size() + " leases on Redis: " + leases);
        }
        long safeHeld = 0;
        Set<String> ids = new HashSet<>();
        for (PermitOwner owner : episode.permitOwners) {
            PermitOwner.PermitHold held = owner.lease;
            if (held != null && onRedis(keys, held) > 0) {
                safeHeld++;
                if (!ids.add(held.handle.permitId())) {
                    episode.fail("two owners are told they hold permit " + held.handle.permitId() + ": " + owners());
                }
            }
        }
        if (safeHeld + leasedFree > leasedTotal) {
            episode.fail("semaphore " + SimConfig.PERMITS + " of " + leasedTotal + " permits: " + safeHeld
                    + " told held and safe, " + leasedFree + " free on Redis: " + owners());
        }
        long nowMillis = world.currentTimeMillis();
        long ended = leases.values().stream().filter(end -> end <= nowMillis).count();
        noWaitWhileFree(SimConfig.SEMAPHORE, free);
        noWaitWhileFree(SimConfig.PERMITS, leasedFree + ended); // ended leases come back at the next call
    }

    /**
     * Nobody waits long while enough permits are free: a waiter wakes on a release's message, or
     * looks again by the look interval (a lost message) or when the nearest lease ends, so one
     * that still waits a look interval, two command timeouts and a second after enough permits
     * came free (and after the last fault that could hold its client back) was left behind.
     */
    private void noWaitWhileFree(String semaphore, long available) {
        long now = world.nanoTime();
        for (int n = 1; n <= 2; n++) {
            if (available >= n) {
                freeSince.putIfAbsent(semaphore + " " + n, now);
            } else {
                freeSince.remove(semaphore + " " + n);
            }
        }
        for (PermitOwner owner : episode.permitOwners) {
            if (!owner.waiting() || !semaphore.equals(owner.waitingOn)) {
                continue;
            }
            Long free = freeSince.get(semaphore + " " + owner.waitingPermits);
            if (free == null) {
                continue;
            }
            long from = Math.max(Math.max(free, owner.waitingSince), episode.lastDisturbanceOf(owner.client));
            if (now - from > freeWaitBound) {
                episode.fail(owner.state() + " has waited for " + owner.waitingPermits + " permit(s) of " + semaphore
                        + " since " + Promises.millis(owner.waitingSince) + " ms; " + available
                        + " have been free since " + Promises.millis(free) + " ms");
            }
        }
    }

    /** Once every owner let go and every lease had time to end. */
    void atQuiescence() {
        SortedMap<String, ModelRedis.Entry> keys = episode.server.model().snapshot();
        long nowMillis = world.currentTimeMillis();
        Map<String, Double> leases = leases(keys);
        long live = leases.values().stream().filter(end -> end > nowMillis).count();
        long leasedFree = count(keys, SimConfig.PERMITS);
        if (live > 0 || leasedFree + leases.size() != leasedTotal) {
            episode.fail("every owner let go and every lease had time to end, but " + SimConfig.PERMITS + " has "
                    + leasedFree + " of " + leasedTotal + " permits free and leases " + leases + " at " + nowMillis);
        }
        long free = count(keys, SimConfig.SEMAPHORE);
        long inDoubt = 0;
        for (SimClient client : episode.clients) {
            for (List<String> call : client.backend.lostScripts()) {
                if (call.size() > 4 && call.get(3).equals(SimConfig.SEMAPHORE)
                        && (call.get(1).equals("semaphore_acquire") || call.get(1).equals("semaphore_release"))) {
                    inDoubt += Long.parseLong(call.get(2).equals("1") ? call.get(4) : call.get(5));
                }
            }
        }
        if (free > countedTotal - abandoned || free < countedTotal - abandoned - inDoubt) {
            episode.fail("every owner let go, but " + SimConfig.SEMAPHORE + " has " + free + " of " + countedTotal
                    + " permits free, with " + abandoned + " kept by holders that died and " + inDoubt
                    + " in calls whose answer was lost");
        } else if (free < countedTotal) {
            episode.log("semaphore " + SimConfig.SEMAPHORE + " ends with " + (countedTotal - free)
                    + " permit(s) taken by calls whose answer was lost (documented)");
        }
    }

    private String owners() {
        return episode.permitOwners.stream().map(PermitOwner::state).toList().toString();
    }
}
