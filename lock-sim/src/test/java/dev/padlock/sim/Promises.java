package dev.padlock.sim;

import dev.padlock.sim.redis.ModelRedis;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;

/**
 * The invariants of "Who holds a lock" and "Grants that keep their promise", checked on the model
 * Redis after every event of an {@link Episode}:
 * <ul>
 *   <li>told held: when an owner is told it holds, Redis has its field with at least the count it
 *       believes (unless the lock was force-unlocked or lost in a restart since that call ran), and
 *       a fixed lease's TTL reaches the end of the lease counted from that call;
 *   <li>believed held: while an owner believes it holds, Redis has its field with that count (one
 *       less while its unlock is in flight), or the owner is told it lost the lock by the time the
 *       TTL it last had runs out;
 *   <li>no two holders: an exclusive lock's hash names one owner at most, and no two owners believe
 *       they hold one at once unless a force unlock or a restart took it from the first;
 *   <li>every key expires, but the fencing counters;
 *   <li>nobody waits on a free lock for longer than a bound: a short one when a call freed it with
 *       no fault of the waiter's client or of every client since, else the longest lease and more
 *       from the last such fault;
 *   <li>at the end, once every owner let go: no acquisition still waits, and no lock is held.
 * </ul>
 * A broken promise of a known kind is counted and its owner left unchecked until it holds nothing
 * ({@link KnownDefect}); any other fails the episode.
 */
final class Promises {
    /** How late past a TTL's end a loss may be reported: the timer's tick and a delivery. */
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);
    private final Episode episode;
    private final long freeWaitBound;
    private final long calmFreeWaitBound;
    private final long calmLineWaitBound;
    private final Map<String, Long> freeSince = new HashMap<>();
    final LeasePromises leases;

    Promises(Episode episode) {
        this.episode = episode;
        this.leases = new LeasePromises(episode, this);
        SimConfig config = episode.config;
        // a waiter that missed every message parks at most the TTL it saw (the longest lease here)
        this.freeWaitBound = TimeUnit.MILLISECONDS.toNanos(Math.max(config.watchdogMillis(), Owner.LONG_LEASE_MILLIS)
                + 2 * config.commandTimeoutMillis() + 1_000);
        // a lock freed in calm (no fault since) wakes its waiters at once; a line (fair, read-write,
        // a multi lock with the fair one) may first wait out a place whose waiter left (the fair
        // waiter timeout)
        this.calmFreeWaitBound = TimeUnit.MILLISECONDS.toNanos(2 * config.commandTimeoutMillis() + 1_000);
        this.calmLineWaitBound = TimeUnit.MILLISECONDS.toNanos(Math.max(config.fairWaiterMillis(),
                2 * config.commandTimeoutMillis()) + 1_000);
    }

    private long now() {
        return episode.world.nanoTime();
    }

    SortedMap<String, ModelRedis.Entry> keys() {
        return episode.server.model().snapshot();
    }

    /** Whether the lock (any component of a composite) was taken from the belief's owner since its first hold ran on Redis. */
    boolean undercut(Belief belief) {
        for (String key : belief.kind.keys()) {
            Long at = episode.undercut.get(key);
            if (at != null && at >= belief.since()) {
                return true;
            }
        }
        return false;
    }

    /**
     * What Redis holds of an owner's field on a lock: the count and the lock's expiry; for a
     * composite, what its quorum of components holds at least (the count that many reach, and
     * the latest expiry that many of those reach).
     */
    record Holding(long count, long expiry) {
    }

    Holding holding(SortedMap<String, ModelRedis.Entry> keys, Kind kind, String field) {
        if (kind.keys().size() == 1) {
            ModelRedis.Entry hash = keys.get(kind.lockName());
            long expiry = hash == null ? 0 : expiry(hash);
            if (kind == Kind.READ) {
                // a read hold ends with its own lease keys, whatever the hash's TTL (a writer drops
                // the fields of readers whose lease keys are gone)
                expiry = Math.min(expiry, readLeaseExpiry(keys, kind.lockName(), field));
            }
            return new Holding(count(hash, field), expiry);
        }
        List<Holding> parts = new java.util.ArrayList<>();
        for (String key : kind.keys()) {
            ModelRedis.Entry hash = keys.get(key);
            parts.add(new Holding(count(hash, field), hash == null ? 0 : expiry(hash)));
        }
        parts.sort(java.util.Comparator.comparingLong(Holding::count).reversed());
        long count = parts.get(kind.quorum() - 1).count();
        List<Long> expiries = parts.stream().filter(h -> h.count() >= count).map(Holding::expiry)
                .sorted(java.util.Comparator.reverseOrder()).toList();
        return new Holding(count, expiries.get(kind.quorum() - 1));
    }

    /** When the last of a reader's lease keys ({@code {name}:<field>:rwlock_timeout:<n>}) expires; 0 without one. */
    private long readLeaseExpiry(SortedMap<String, ModelRedis.Entry> keys, String name, String field) {
        String prefix = "{" + name + "}:" + field + ":rwlock_timeout:";
        long until = 0;
        for (Map.Entry<String, ModelRedis.Entry> key : keys.tailMap(prefix).entrySet()) {
            if (!key.getKey().startsWith(prefix)) {
                break;
            }
            until = Math.max(until, expiry(key.getValue()));
        }
        return until;
    }

    /** Whether any of the lock's hashes has the field: a hold left there lasts until it is let go or expires. */
    private static boolean anyHeld(SortedMap<String, ModelRedis.Entry> keys, Kind kind, String field) {
        return kind.keys().stream().anyMatch(key -> count(keys.get(key), field) > 0);
    }

    private static String describe(SortedMap<String, ModelRedis.Entry> keys, Kind kind) {
        return kind.keys().stream().map(key -> key + "=" + keys.get(key)).toList().toString();
    }

    private static long count(ModelRedis.Entry hash, String field) {
        if (hash == null || !"hash".equals(hash.type())) {
            return 0;
        }
        @SuppressWarnings("unchecked")
        String value = ((Map<String, String>) hash.value()).get(field);
        return value == null ? 0 : Long.parseLong(value);
    }

    private long expiry(ModelRedis.Entry entry) {
        return entry.pttl() < 0 ? Long.MAX_VALUE : now() + entry.pttl() * MILLI;
    }

    /** An owner was told it holds, by the reply or message being delivered now. */
    void told(Belief belief) {
        if (undercut(belief) || belief.unchecked()) {
            return;
        }
        Holding hash = holding(keys(), belief.kind, belief.field);
        long onRedis = hash.count();
        if (onRedis < belief.count()) {
            String what = belief + " was told it holds, but Redis has " + onRedis + " holds of " + belief.field;
            Belief.Hold hold = belief.last();
            if (belief.uncertain > 0 && onRedis >= belief.certain()) {
                episode.log(belief + ": its earlier holds had outlived their lease; Redis counts " + onRedis);
                if (belief.kind.keys().size() == 1) {
                    belief.keep(onRedis);
                } // a composite's components may count them still (a red lock's minority): it unlocks each
            } else if (givenBackSince(belief)) {
                known(belief, KnownDefect.GIVE_BACK_REMOVED_A_LATER_HOLD, what);
                belief.keep(onRedis);
                belief.tainted = true;
            } else if (pausedLately(belief, hold)) {
                known(belief, KnownDefect.STALE_AFTER_PAUSE, what);
                belief.keep(onRedis);
                belief.tainted = true;
            } else if (hold.reentry() && hold.lostReply() && onRedis > 0) {
                known(belief, KnownDefect.CONFIRMED_BY_ANOTHER_HOLD, what);
                belief.keep(onRedis);
                belief.tainted = true;
            } else {
                episode.fail(what);
            }
            return;
        }
        if (ttlShort(belief, hash) && belief.last().lostReply() && ownerOf(belief).unconfirmed.contains(belief.field)) {
            known(belief, KnownDefect.CONFIRMED_BY_ANOTHER_HOLD, belief + " was confirmed after a lost reply by the hold"
                    + " its unconfirmed unlock left, whose TTL ends at " + millis(hash.expiry()) + " ms, before "
                    + millis(belief.requiredExpiry()) + " ms as promised");
            belief.tainted = true;
            return;
        }
        if (ttlShort(belief, hash) && pausedLately(belief, belief.last())) {
            known(belief, KnownDefect.STALE_AFTER_PAUSE, belief + " was told it holds after a pause, with the TTL of its"
                    + " lease partly gone: ends at " + millis(hash.expiry()) + " ms, promised " + millis(belief.requiredExpiry()));
            belief.forget();
            return;
        }
        checkTtl(belief, hash);
    }

    /**
     * Whether the owner's client was paused within its lease and two command timeouts before now:
     * a reply or grant it read may be stale.
     */
    private boolean pausedLately(Belief belief, Belief.Hold hold) {
        long pausedUntil = belief.client.pausedUntil;
        if (pausedUntil < 0) {
            return false;
        }
        long lease = hold.watchdog() ? episode.config.watchdogMillis() : hold.leaseMillis();
        // the call that told may be a late one after a grant read late: look back a whole lease
        return pausedUntil >= now() - TimeUnit.MILLISECONDS.toNanos(lease + 2 * episode.config.commandTimeoutMillis());
    }

    private boolean ttlShort(Belief belief, Holding hash) {
        long required = belief.requiredExpiry();
        return required > now() && hash.expiry() < required - MILLI;
    }

    private void checkTtl(Belief belief, Holding hash) {
        if (belief.kind.rearms() && belief.acquiring > 0 || undercut(belief)) {
            return; // a re-entry in flight may have re-armed the lease already; a force unlock took it
        }
        long required = belief.requiredExpiry();
        if (required > now() && hash.expiry() < required - MILLI) {
            episode.fail(belief + " was promised its lease until " + millis(required) + " ms, but the lock's TTL ends at "
                    + millis(hash.expiry()) + " ms");
        }
    }

    void afterStep() {
        SortedMap<String, ModelRedis.Entry> keys = keys();
        believedHolds(keys);
        exclusive(keys);
        everyKeyExpires(keys);
        noWaitOnAFreeLock(keys);
        leases.afterStep(keys);
        if (episode.semaphores != null) {
            episode.semaphores.afterStep(keys);
        }
    }

    /** Whether a give-back of the owner's claim ran after its hold began: see {@link KnownDefect#GIVE_BACK_REMOVED_A_LATER_HOLD}. */
    private boolean givenBackSince(Belief belief) {
        Long at = episode.givenBack.get(belief.kind.lockName() + ' ' + belief.field);
        return at != null && at >= belief.since();
    }

    private void believedHolds(SortedMap<String, ModelRedis.Entry> keys) {
        for (Owner owner : episode.owners) {
            for (Belief belief : owner.beliefs()) {
                if (belief.count() == 0 || belief.unchecked()) {
                    continue;
                }
                if (belief.promisedUntil() <= now()) {
                    continue; // its fixed lease is over, and the owner knows it (nothing is missing)
                }
                Holding hash = holding(keys, belief.kind, belief.field);
                if (hash.count() < belief.certain() && givenBackSince(belief)
                        && !belief.releasing && !undercut(belief)) { // a force unlock is no give-back
                    known(belief, KnownDefect.GIVE_BACK_REMOVED_A_LATER_HOLD, belief + " lost its hold to a give-back"
                            + " of its own client's earlier claim");
                    belief.forget();
                    continue;
                }
                long onRedis = hash.count();
                long least = belief.releasing ? belief.certain() - 1 : belief.certain();
                if (onRedis >= belief.count()) {
                    belief.lastSeenExpiry = hash.expiry();
                    if (!belief.releasing) { // an unlock in flight may have landed: what is left may be no hold of it
                        checkTtl(belief, hash);
                    }
                } else if (undercut(belief) || onRedis >= least) {
                    continue;
                } else if (belief.last().lostReply() && owner.unconfirmed.contains(belief.field)) {
                    known(belief, KnownDefect.CONFIRMED_BY_ANOTHER_HOLD, belief + " was confirmed by a hold its"
                            + " unconfirmed unlock left, which nobody renews; Redis counts " + onRedis);
                    belief.forget();
                } else if (onRedis > 0) {
                    episode.fail(belief + " believes it holds " + belief.count() + " times, but Redis counts " + onRedis);
                } else if (belief.watchdog()
                        && now() > satAdd(Math.max(belief.lastSeenExpiry, belief.client.pausedUntil), LATE_NANOS)) {
                    // whether its renewals were answered or not (a stalled or unreachable Redis): the
                    // watchdog tells a loss when the last TTL it confirmed ends, or as its client
                    // runs again when it was paused then (a fixed lease ends with its TTL; one
                    // shorter than promised fails the TTL check)
                    episode.fail(belief + " still believes it holds, but its field left Redis and the TTL it had ended at "
                            + millis(belief.lastSeenExpiry) + " ms without a word to it");
                }
            }
        }
    }

    private void exclusive(SortedMap<String, ModelRedis.Entry> keys) {
        for (Kind kind : episode.kinds()) {
            for (String key : kind.keys()) {
                ModelRedis.Entry hash = keys.get(key);
                if (hash == null || !"hash".equals(hash.type())) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                Map<String, String> fields = (Map<String, String>) hash.value();
                List<String> owners = fields.keySet().stream().filter(f -> !f.equals("mode"))
                        .map(f -> f.endsWith(":write") ? f.substring(0, f.length() - 6) : f).distinct().toList();
                boolean exclusive = kind != Kind.READ && kind != Kind.WRITE || "write".equals(fields.get("mode"));
                if (exclusive && owners.size() > 1) {
                    episode.fail("Redis lets two owners hold " + key + ": " + fields);
                }
            }
        }
        // no two owners believe they hold an exclusive lock, unless it was taken from the first
        for (Owner a : episode.owners) {
            for (Belief x : a.beliefs()) {
                if (!believes(x)) {
                    continue;
                }
                for (Owner b : episode.owners) {
                    if (b == a) {
                        continue;
                    }
                    for (Belief y : b.beliefs()) {
                        if (believes(y) && x.kind.keys().stream().anyMatch(y.kind.keys()::contains)
                                && (x.kind.exclusive() || y.kind.exclusive()) && x.since() <= y.since()) {
                            episode.fail("two owners believe they hold " + x.kind.lockName() + ": " + x + " and " + y);
                        }
                    }
                }
            }
        }
    }

    /** Whether the owner believes it holds and nothing excuses the belief: not over, not taken, not past its TTL. */
    private boolean believes(Belief belief) {
        int live = belief.liveCount(now());
        int sure = belief.releasing ? live - 1 : live; // an unlock in flight may have landed
        if (sure <= 0 || undercut(belief) || belief.unchecked()) {
            return false;
        }
        // a hold ends with the TTL Redis gave it (a fixed lease's start may not be known exactly);
        // that a watchdog owner is told of its loss in time is the believed-holds check's business
        return now() < Math.min(belief.promisedUntil(), belief.lastSeenExpiry);
    }

    private void everyKeyExpires(SortedMap<String, ModelRedis.Entry> keys) {
        keys.forEach((key, entry) -> {
            // the fencing counters, and the semaphores: the count is the semaphore, and the leases
            // empty themselves as permits come back (SemaphorePromises checks that none is left)
            if (entry.pttl() < 0 && !key.startsWith("redisson_lock_token:") && !key.equals(SimConfig.SEMAPHORE)
                    && !key.equals(SimConfig.PERMITS) && !key.equals("{" + SimConfig.PERMITS + "}:timeout")) {
                episode.fail("the key " + key + " (" + entry.type() + ") has no expiry: " + entry.value());
            }
        });
    }

    private void noWaitOnAFreeLock(SortedMap<String, ModelRedis.Entry> keys) {
        for (Kind kind : Kind.values()) {
            String name = kind.lockName();
            // a composite is free when none of its components is held (not when only the waiter's own is)
            if (kind.keys().stream().anyMatch(keys::containsKey)) {
                freeSince.remove(name);
            } else {
                freeSince.putIfAbsent(name, now());
            }
        }
        for (Owner owner : episode.owners) {
            if (owner.waiting == 0 || owner.kind() == null) {
                continue;
            }
            Long free = freeSince.get(owner.kind().lockName());
            if (free == null) {
                continue;
            }
            long from = Math.max(free, owner.waitingSince);
            // calm: freed by a call (not by its TTL running out: waiters then park for the TTL they
            // saw, as Redisson's do), with no fault since
            long disturbed = episode.lastDisturbanceOf(owner.client);
            boolean calm = free > disturbed && owner.waitingSince > disturbed && free.equals(releasedAt(owner.kind()));
            boolean line = owner.kind() == Kind.FAIR || owner.kind() == Kind.READ || owner.kind() == Kind.WRITE
                    || owner.kind() == Kind.MULTI || owner.kind() == Kind.BATCH;
            long bound = !calm ? freeWaitBound : line ? calmLineWaitBound : calmFreeWaitBound;
            from = calm ? from : Math.max(from, disturbed);
            if (now() - from > bound) {
                episode.fail(owner.client.id + "/" + owner.id + " has waited for " + owner.kind() + " for "
                        + millis(now() - owner.waitingSince) + " ms; the lock has been free since " + millis(free) + " ms");
            }
        }
    }

    /** When a script last released, gave back or left the lock (its latest component, for a composite); null: never. */
    private Long releasedAt(Kind kind) {
        return kind.keys().stream().map(episode.released::get).filter(java.util.Objects::nonNull)
                .max(Long::compare).orElse(null);
    }

    /**
     * A lock held on Redis by an owner field whose owner believes it holds nothing there, after an
     * unlock of it ended unconfirmed, its client lost a reply or a message about that lock, or a
     * known defect struck the owner's holds of it; null when there is none.
     */
    String ghostHolder() {
        SortedMap<String, ModelRedis.Entry> keys = keys();
        for (Owner owner : episode.owners) {
            for (Belief belief : owner.beliefs()) {
                boolean doubt = owner.unconfirmed.contains(belief.field) || belief.struck
                        || belief.kind.keys().stream().anyMatch(owner.client.backend::lostAbout);
                if (belief.count() == 0 && doubt && anyHeld(keys, belief.kind, belief.field)) {
                    return belief.field + " on " + belief.kind.lockName() + ": " + describe(keys, belief.kind);
                }
            }
        }
        return null;
    }

    private Owner ownerOf(Belief belief) {
        return episode.owners.stream().filter(o -> o.client == belief.client && o.beliefs().contains(belief)).findFirst()
                .orElseThrow();
    }

    /** Counts a known defect that struck {@code belief}: a hold left behind by it later is that defect's too. */
    private void known(Belief belief, KnownDefect defect, String what) {
        belief.struck = true;
        episode.known(defect, what);
    }

    /** Every owner let go and every acquisition ended: no lock may be held. */
    void atQuiescence() {
        String ghost = ghostHolder();
        if (ghost != null) {
            episode.known(KnownDefect.GHOST_HOLD_RENEWED, "once every owner let go, Redis still has "
                    + ghost);
            return;
        }
        SortedMap<String, ModelRedis.Entry> keys = keys();
        for (Kind kind : episode.kinds()) {
            for (String key : kind.keys()) {
                ModelRedis.Entry hash = keys.get(key);
                if (hash != null && "hash".equals(hash.type())) {
                    episode.fail("every owner let go, but Redis still holds " + key + ": " + hash.value()
                            + " (TTL " + hash.pttl() + " ms)");
                }
            }
        }
    }

    private static long satAdd(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }

    static String millis(long nanos) {
        return nanos == Long.MAX_VALUE ? "never" : String.format("%.3f", nanos / 1e6);
    }
}
