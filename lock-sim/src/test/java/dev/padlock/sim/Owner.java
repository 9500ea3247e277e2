package dev.padlock.sim;

import dev.padlock.LockLease;
import dev.padlock.RLock;
import dev.padlock.sim.engine.World;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * One owner id of one client, as an application thread would use it, driven by the seed: it
 * acquires a lock of some kind (watchdog or fixed lease; blocking, timed or one-shot; now and then
 * a second wait of its own beside the first, or a wait it cancels), holds it a while, re-enters,
 * and releases every hold it was told it has. Now and then it acquires through the lease API
 * instead ({@link LockLease}, one lease at a time, never re-entered), and releases through the lease.
 */
final class Owner {
    /** The longest fixed lease an owner asks for. */
    static final long LONG_LEASE_MILLIS = 12_000;
    final SimClient client;
    final long id;
    private final World world;
    private final Episode episode;
    private final Map<Kind, Belief> beliefs = new EnumMap<>(Kind.class);
    /** Its beliefs by kind, then one for each lease it asked for in the episode. */
    private final List<Belief> allBeliefs = new ArrayList<>();
    /** The lease it acquires or holds now, when it works through the lease API; null otherwise. */
    private LeaseHold lease;
    /** The kind it works on now: it holds or waits for only this one. */
    private Kind kind;
    /** Acquisitions of this owner in flight, and when the oldest began. */
    int waiting;
    long waitingSince;
    private boolean stopping;
    /** The owner's next unlock, while one is planned. */
    private World.Event unlockLater;
    /** The owner's next acquisition, while one is planned. */
    private World.Event plannedAcquire;
    /** Owner fields whose unlock ended with its outcome unknown. */
    final java.util.Set<String> unconfirmed = new java.util.HashSet<>();

    Owner(SimClient client, long id, World world, Episode episode) {
        this.client = client;
        this.id = id;
        this.world = world;
        this.episode = episode;
        for (Kind k : Kind.values()) {
            beliefs.put(k, new Belief(client, id, k));
        }
        allBeliefs.addAll(beliefs.values());
    }

    List<Belief> beliefs() {
        return allBeliefs;
    }

    /** What it believes of the hold it works on: its lease's, when it works through one; null before its first. */
    private Belief current() {
        return lease != null ? lease.belief : kind == null ? null : beliefs.get(kind);
    }

    Kind kind() {
        return kind;
    }

    boolean idle() {
        Belief held = current();
        return waiting == 0 && (held == null || held.count() == 0);
    }

    /** When the hold it works on ends by its lease: Long.MAX_VALUE for a watchdog hold, 0 when it holds nothing. */
    long holdsUntil() {
        Belief held = current();
        return held == null || held.count() == 0 ? 0 : held.promisedUntil();
    }

    void stop() {
        stopping = true;
    }

    /** Its hold lasts long: a force unlock by its own client took the lock while it works on. */
    void holdOn() {
        if (!stopping && unlockLater != null && !unlockLater.isCancelled() && unlockLater.at() > world.nanoTime()) {
            unlockLater.cancel();
            unlockLater = later(2_000, 8_000, "unlocks " + kind + " (held on)", this::unlock);
        }
    }

    private SplittableRandom random() {
        return world.random();
    }

    private World.Event later(long minMillis, long maxMillis, String what, Runnable action) {
        long delay = minMillis + random().nextLong(maxMillis - minMillis + 1);
        return world.after(delay, TimeUnit.MILLISECONDS, client.actor, client.id + "/" + id + " " + what, action);
    }

    /** Plans the owner's next acquisition (or what leads to one): it is busy until that runs. */
    private void plan(long minMillis, long maxMillis, String what, Runnable action) {
        plannedAcquire = later(minMillis, maxMillis, what, () -> {
            plannedAcquire = null;
            action.run();
        });
    }

    /** Starts the owner's life: its first acquisition comes after a short while. */
    void start() {
        later(0, 300, "starts", this::next);
    }

    /** What the owner does when its last call ended. */
    private void next() {
        if (lease != null && waiting == 0 && lease.belief.count() == 0) {
            lease = null; // released, lost or never had: the next acquisition is a new one
        }
        Belief held = current();
        if (held != null && held.count() > 0) {
            // every hold is released, even one whose lease may have ended: its unlock then says so
            // (IllegalMonitorStateException), as an application finds out
            if (!stopping && lease == null && held.count() < 3 && waiting == 0 && random().nextInt(6) == 0) {
                later(0, 400, "re-enters " + kind, () -> acquire(kind));
                return;
            } else if (waiting == 0) {
                // most holds are short; one in ten outlasts several renewals and every wait for it
                boolean longHold = !stopping && random().nextInt(10) == 0;
                unlockLater = later(longHold ? 2_000 : 0, stopping ? 50 : longHold ? 8_000 : 700, "unlocks " + kind,
                        this::unlock);
                return;
            } else {
                return; // a second wait of its own is in flight; it comes back here
            }
        }
        if (waiting > 0) {
            return;
        }
        if (stopping || !episode.takeOperation()) {
            return;
        }
        Owner stuck = episode.stuckSibling(this);
        if (stuck != null && random().nextInt(3) == 0) {
            // a sibling has held a lock on a long lease for a while: this thread takes it for stuck
            Kind on = stuck.kind();
            stuck.holdOn(); // it does not know: it works on for a while before it unlocks
            plan(0, 300, "force-unlocks " + on, () -> {
                if (!forceUnlockAndTake(on)) {
                    next();
                }
            });
            return;
        }
        kind = episode.kinds().get(random().nextInt(episode.kinds().size()));
        // threads of one service often want the same lock: half the time, the one a sibling works on
        Kind sibling = episode.siblingKind(this);
        if (sibling != null && random().nextBoolean()) {
            kind = sibling;
        }
        plan(0, 300, "acquires " + kind, () -> acquire(kind));
    }

    /**
     * Force-unlocks {@code on}, as a thread of a service does with a lock it takes for stuck, then
     * acquires it; false, doing nothing, when the owner holds, waits or is stopping. A sibling of
     * its client that held the lock then works on unaware (see {@link #holdOn}).
     */
    boolean forceUnlockAndTake(Kind on) {
        boolean holds = allBeliefs.stream().anyMatch(b -> b.count() > 0);
        if (stopping || waiting > 0 || holds) {
            return false;
        }
        if (unlockLater != null) {
            unlockLater.cancel(); // a planned unlock of a hold it was told it lost
        }
        if (plannedAcquire != null) {
            plannedAcquire.cancel();
        }
        kind = on;
        episode.log("OPERATION: " + client.id + "/" + id + " force-unlocks " + on + ", then acquires it");
        waiting++; // busy until its acquisition starts
        waitingSince = world.nanoTime();
        client.lock(on).forceUnlockAsync().whenComplete((ok, failure) -> {
            waiting--;
            plan(0, 100, "acquires " + on + ", which it force-unlocked", () -> acquire(on));
        });
        return true;
    }

    private void acquire(Kind on) {
        if (this.lease != null) {
            return; // it works through its lease until that ends: a call of its own id would wait for it
        }
        if (stopping && beliefs.get(on).count() == 0) {
            next();
            return;
        }
        if (lease == null && waiting == 0 && beliefs.get(on).count() == 0 && beliefs.get(on).acquiring == 0
                && random().nextInt(4) == 0) {
            acquireLease(on);
            return;
        }
        RLock lock = client.lock(on);
        // another hold, or another acquisition under way, of this owner on the lock: either can answer
        // the confirmation of this one's lost reply
        boolean reentry = beliefs.get(on).count() > 0 || beliefs.get(on).acquiring > 0;
        long lostBefore = client.backend.lostReplies();
        long askedAt = world.nanoTime();
        long lease = chooseLease();
        int form = random().nextInt(10);
        CompletableFuture<?> call;
        String what;
        if (form < 3) {
            call = lock.lockAsync(lease, TimeUnit.MILLISECONDS, id);
            what = "lockAsync(lease " + lease + ")";
        } else if (form < 5) {
            call = lock.tryLockAsync(0, lease, TimeUnit.MILLISECONDS, id);
            what = "tryLockAsync(0, lease " + lease + ")";
        } else {
            long wait = 50 + random().nextLong(4_000);
            call = lock.tryLockAsync(wait, lease, TimeUnit.MILLISECONDS, id);
            what = "tryLockAsync(wait " + wait + ", lease " + lease + ")";
        }
        episode.log(client.id + "/" + id + " " + on + " " + what);
        if (waiting++ == 0) {
            waitingSince = world.nanoTime();
        }
        beliefs.get(on).acquiring++;
        if (!stopping && random().nextInt(12) == 0) {
            later(0, 1_500, "cancels its wait on " + on, () -> {
                if (call.cancel(true)) {
                    episode.log(client.id + "/" + id + " cancelled its wait on " + on);
                }
            });
        }
        if (!stopping && waiting == 1 && random().nextInt(10) == 0) {
            later(0, 200, "waits a second time on " + on, () -> {
                if (kind == on && waiting > 0) {
                    acquire(on);
                }
            });
        }
        call.whenComplete((result, failure) -> acquired(on, lease, result, failure, askedAt, reentry,
                client.backend.lostReplies() > lostBefore));
    }

    /**
     * A watchdog lease a third of the time; else a fixed one, mostly short, and one in eight long
     * enough to outlast every wait bound (a local view that keeps a holder Redis dropped then
     * holds its siblings back past them).
     */
    private long chooseLease() {
        if (random().nextInt(3) == 0) {
            return -1;
        }
        return random().nextInt(8) == 0 ? LONG_LEASE_MILLIS / 2 + random().nextLong(LONG_LEASE_MILLIS / 2 + 1)
                : 400 + random().nextLong(3_600);
    }

    private void acquired(Kind on, long lease, Object result, Throwable failure, long askedAt, boolean reentry,
            boolean lostReply) {
        waiting--;
        beliefs.get(on).acquiring--;
        if (waiting > 0) {
            waitingSince = world.nanoTime();
        }
        boolean held = failure == null && (result == null || Boolean.TRUE.equals(result));
        if (held) {
            Belief belief = beliefs.get(on);
            if (belief.count() > 0 && belief.promisedUntil() <= world.nanoTime()) {
                // its earlier holds' lease is over: they may be gone from Redis or not (it still
                // unlocks each, as an application does); the new hold may be its only one
                episode.log(client.id + "/" + id + " " + on + ": its earlier holds had outlived their lease");
                belief.uncertain = belief.count();
            }
            // a composite's components ran at several times, each after it was asked for: count from then
            long ranAt = on.keys().size() > 1 ? askedAt : world.causeRanAt();
            belief.told(new Belief.Hold(ranAt, lease, world.nanoTime(), askedAt, reentry, lostReply));
            episode.log(client.id + "/" + id + " holds " + on + " x" + belief.count()
                    + (world.causeRanAt() < 0 ? " (told outside a reply)" : ""));
            episode.checkTold(belief);
            episode.held(on);
        } else {
            episode.log(client.id + "/" + id + " did not get " + on + ": "
                    + (failure == null ? "false" : describe(failure)));
        }
        next();
    }

    private void unlock() {
        Kind on = kind;
        Belief belief = current();
        if (belief.count() == 0) {
            // told it lost the lock meanwhile: it goes on, unless its next step is under way
            if (waiting == 0 && plannedAcquire == null) {
                next();
            }
            return;
        }
        if (lease != null) {
            release(lease);
            return;
        }
        episode.log(client.id + "/" + id + " unlockAsync " + on);
        belief.releasing = true;
        client.lock(on).unlockAsync(id).whenComplete((ok, failure) -> {
            belief.releasing = false;
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause == null) {
                belief.released();
            } else if (cause instanceof IllegalMonitorStateException) {
                episode.log(client.id + "/" + id + " was told at unlock that it lost " + on + ": " + cause.getMessage());
                if (on.keys().size() > 1) {
                    // a composite: the components it still held let one hold go; it unlocks the rest
                    belief.released();
                    belief.lost = belief.count() > 0;
                } else {
                    belief.forget();
                }
            } else {
                // the outcome is not known: the hold is let go as far as the application goes, and it
                // unlocks the others it has, from their finally blocks. The engine keeps those (one
                // given back later if Redis still counts it); after the last, it stops renewing
                // (Redis may keep it until its lease ends). More holds on Redis than believed are no
                // breach of the promise
                episode.log(client.id + "/" + id + " unlock of " + on + " failed: " + describe(cause));
                unconfirmed.add(belief.field);
                belief.released();
            }
            next();
        });
    }

    /** The lease-lost listener named this owner and lock. */
    void leaseLost(String lockName) {
        for (Belief belief : beliefs.values()) {
            toldLost(belief, lockName);
        }
    }

    /** The lease-lost listener named {@code lost}, a lease of this owner, on {@code lockName}. */
    void leaseLost(LeaseHold lost, String lockName) {
        if (lost == lease) {
            toldLost(lost.belief, lockName);
        }
    }

    private void toldLost(Belief belief, String lockName) {
        if (belief.kind.keys().contains(lockName) && belief.count() > 0) {
            episode.log(client.id + "/" + id + " told it lost " + belief.kind
                    + (belief.owner != id ? " (lease " + belief.owner + ")" : "")
                    + (belief.kind.keys().size() > 1 ? " (its component " + lockName + ")" : ""));
            if (belief.kind.keys().size() > 1) {
                belief.lost = true; // it still unlocks the others, from a finally block
            } else {
                belief.forget();
            }
        }
    }

    /** Acquires {@code on} through the lease API: waiting without bound, once or a while; now and then it cancels. */
    private void acquireLease(Kind on) {
        RLock lock = client.lock(on);
        long lostBefore = client.backend.lostReplies();
        long askedAt = world.nanoTime();
        long leaseMillis = chooseLease();
        Duration leaseTime = leaseMillis < 0 ? Duration.ZERO : Duration.ofMillis(leaseMillis);
        int form = random().nextInt(10);
        CompletableFuture<?> call;
        String what;
        if (form < 3) {
            call = lock.acquireAsync(leaseTime);
            what = "acquireAsync(lease " + leaseMillis + ")";
        } else if (form < 5) {
            call = lock.tryAcquireAsync(Duration.ZERO, leaseTime);
            what = "tryAcquireAsync(0, lease " + leaseMillis + ")";
        } else {
            long wait = 50 + random().nextLong(4_000);
            call = lock.tryAcquireAsync(Duration.ofMillis(wait), leaseTime);
            what = "tryAcquireAsync(wait " + wait + ", lease " + leaseMillis + ")";
        }
        LeaseHold asked = new LeaseHold(new Belief(client, LeaseOwners.last(), on), askedAt);
        lease = asked;
        allBeliefs.add(asked.belief);
        episode.leases().started(asked);
        episode.log(client.id + "/" + id + " " + on + " " + what + " as lease " + asked.belief.owner);
        waiting++;
        waitingSince = askedAt;
        asked.belief.acquiring++;
        if (!stopping && random().nextInt(12) == 0) {
            later(0, 1_500, "cancels its lease wait on " + on, () -> {
                if (call.cancel(true)) {
                    episode.log(client.id + "/" + id + " cancelled its lease wait on " + on);
                }
            });
        }
        call.whenComplete((result, failure) -> leaseAcquired(asked, leaseMillis, result, failure,
                client.backend.lostReplies() > lostBefore));
    }

    private void leaseAcquired(LeaseHold asked, long leaseMillis, Object result, Throwable failure, boolean lostReply) {
        waiting--;
        Belief belief = asked.belief;
        belief.acquiring--;
        LockLease got = result instanceof java.util.Optional<?> maybe ? (LockLease) maybe.orElse(null) : (LockLease) result;
        if (failure == null && got != null) {
            asked.told(got);
            // a composite's components ran at several times, each after it was asked for: count from then
            long ranAt = belief.kind.keys().size() > 1 ? asked.askedAt : world.causeRanAt();
            belief.told(new Belief.Hold(ranAt, leaseMillis, world.nanoTime(), asked.askedAt, false, lostReply));
            episode.log(client.id + "/" + id + " holds " + belief.kind + " by lease " + belief.owner
                    + (world.causeRanAt() < 0 ? " (told outside a reply)" : ""));
            episode.checkTold(belief);
            episode.leases().safeFor(asked); // it reads how long it is safe as it starts its work
            episode.held(belief.kind);
        } else {
            episode.log(client.id + "/" + id + " did not get " + asked + ": " + (failure == null ? "empty" : describe(failure)));
        }
        next();
    }

    /** Releases the lease it holds, through the lease, reading how long it is safe first. */
    private void release(LeaseHold held) {
        Belief belief = held.belief;
        episode.leases().safeFor(held);
        episode.log(client.id + "/" + id + " releaseAsync " + held);
        held.releaseSent = true;
        belief.releasing = true;
        held.handle.releaseAsync().whenComplete((ok, failure) -> {
            belief.releasing = false;
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause == null) {
                belief.released();
            } else if (cause instanceof IllegalMonitorStateException) {
                episode.log(client.id + "/" + id + " was told at release that it lost " + held + ": " + cause.getMessage());
                belief.forget();
            } else {
                episode.log(client.id + "/" + id + " release of " + held + " failed: " + describe(cause));
                unconfirmed.add(belief.field);
                belief.released();
            }
            next();
        });
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
