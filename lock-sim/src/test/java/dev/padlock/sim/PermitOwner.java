package dev.padlock.sim;

import dev.padlock.PermitLease;
import dev.padlock.sim.engine.World;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * One application thread of a client that works with the episode's semaphores, driven by the
 * seed: it takes permits of the counted semaphore ({@link dev.padlock.RSemaphore}, one or two at
 * once) or a permit of the permit-expirable one ({@link dev.padlock.RPermitExpirableSemaphore}, on
 * a watchdog or a fixed lease), one-shot, with a timed wait or waiting without bound; now and then
 * it cancels its wait; it holds a while and gives back what it was told it has, but one hold in
 * fifteen is abandoned, as by a thread that died holding it (a permit lease on a fixed lease then
 * comes back when the lease ends; counted permits stay taken, as the user guide says). Told to
 * stop, it cancels a wait in flight, as a service shutting down does.
 */
final class PermitOwner {
    final SimClient client;
    final int id;
    private final World world;
    private final Episode episode;
    private final SemaphorePromises promises;
    /** Its acquisition in flight; null when none is. */
    private CompletableFuture<?> waitingFor;
    /** What it waits for while {@link #waitingFor} is set: the semaphore's name, how many, since when. */
    String waitingOn;
    int waitingPermits;
    long waitingSince;
    /** Counted permits it was told it holds and has not sent back. */
    int countedHeld;
    /** The permit lease it holds; null when none. */
    PermitHold lease;
    private boolean stopping;

    /** A permit of the permit-expirable semaphore, from when its owner is told it holds it. */
    static final class PermitHold {
        final PermitLease handle;
        /** The fixed lease in ms; 0 for the watchdog's. */
        final long leaseMillis;
        boolean releaseSent;

        PermitHold(PermitLease handle, long leaseMillis) {
            this.handle = handle;
            this.leaseMillis = leaseMillis;
        }
    }

    PermitOwner(SimClient client, int id, World world, Episode episode, SemaphorePromises promises) {
        this.client = client;
        this.id = id;
        this.world = world;
        this.episode = episode;
        this.promises = promises;
    }

    private String name() {
        return client.id + "/permits" + id;
    }

    /** Whether an acquisition of it is in flight. */
    boolean waiting() {
        return waitingFor != null;
    }

    boolean idle() {
        return waitingFor == null && countedHeld == 0 && lease == null;
    }

    String state() {
        return name() + (waitingFor != null ? " waiting" : "") + (countedHeld > 0 ? " holding " + countedHeld : "")
                + (lease != null ? " holding " + lease.handle.permitId() : "");
    }

    void start() {
        later(0, 300, "starts", this::next);
    }

    /** Lets go: a wait in flight is cancelled; what it holds is given back soon. */
    void stop() {
        stopping = true;
        CompletableFuture<?> wait = waitingFor;
        if (wait != null && wait.cancel(true)) {
            episode.log(name() + " cancelled its wait: stopping");
        }
    }

    private void later(long minMillis, long maxMillis, String what, Runnable action) {
        long delay = minMillis + world.random().nextLong(maxMillis - minMillis + 1);
        world.after(delay, TimeUnit.MILLISECONDS, client.actor, name() + " " + what, action);
    }

    private void next() {
        boolean fixedLease = lease != null && lease.leaseMillis > 0;
        if ((countedHeld > 0 || fixedLease) && !stopping && world.random().nextInt(15) == 0) {
            episode.log(name() + " dies holding " + (fixedLease ? "permit " + lease.handle.permitId()
                    : countedHeld + " permit(s) of " + SimConfig.SEMAPHORE) + ": it never gives it back");
            promises.abandoned(countedHeld);
            countedHeld = 0;
            lease = null;
        }
        if (countedHeld > 0 || lease != null) {
            boolean longHold = !stopping && world.random().nextInt(10) == 0;
            later(longHold ? 2_000 : 0, stopping ? 50 : longHold ? 8_000 : 700, "releases", this::release);
            return;
        }
        if (stopping || waitingFor != null || !episode.takePermitOperation()) {
            return;
        }
        later(0, 300, "acquires", world.random().nextBoolean() ? this::acquireCounted : this::acquireLease);
    }

    private void acquireCounted() {
        if (stopping) {
            return;
        }
        int permits = world.random().nextInt(4) == 0 ? 2 : 1;
        int form = world.random().nextInt(10);
        CompletableFuture<?> call;
        String what;
        if (form < 3) {
            call = client.semaphore.acquireAsync(permits);
            what = "acquireAsync(" + permits + ")";
        } else if (form < 5) {
            call = client.semaphore.tryAcquireAsync(permits, Duration.ZERO);
            what = "tryAcquireAsync(" + permits + ", 0)";
        } else {
            long wait = 50 + world.random().nextLong(4_000);
            call = client.semaphore.tryAcquireAsync(permits, Duration.ofMillis(wait));
            what = "tryAcquireAsync(" + permits + ", wait " + wait + ")";
        }
        started(call, SimConfig.SEMAPHORE, permits, what);
        call.whenComplete((result, failure) -> {
            waitingFor = null;
            if (failure == null && (result == null || Boolean.TRUE.equals(result))) {
                countedHeld += permits;
                episode.log(name() + " holds " + permits + " permit(s) of " + SimConfig.SEMAPHORE);
                promises.told(this);
            } else {
                episode.log(name() + " did not get " + permits + " permit(s): " + describe(result, failure));
            }
            next();
        });
    }

    private void acquireLease() {
        if (stopping) {
            return;
        }
        long leaseMillis = world.random().nextInt(3) == 0 ? 0 : world.random().nextInt(8) == 0
                ? Owner.LONG_LEASE_MILLIS / 2 + world.random().nextLong(Owner.LONG_LEASE_MILLIS / 2 + 1)
                : 400 + world.random().nextLong(3_600);
        Duration leaseTime = Duration.ofMillis(leaseMillis);
        int form = world.random().nextInt(10);
        CompletableFuture<?> call;
        String what;
        if (form < 3) {
            call = client.permits.acquireAsync(leaseTime);
            what = "acquireAsync(lease " + leaseMillis + ")";
        } else if (form < 5) {
            call = client.permits.tryAcquireAsync(Duration.ZERO, leaseTime);
            what = "tryAcquireAsync(0, lease " + leaseMillis + ")";
        } else {
            long wait = 50 + world.random().nextLong(4_000);
            call = client.permits.tryAcquireAsync(Duration.ofMillis(wait), leaseTime);
            what = "tryAcquireAsync(wait " + wait + ", lease " + leaseMillis + ")";
        }
        started(call, SimConfig.PERMITS, 1, what);
        call.whenComplete((result, failure) -> {
            waitingFor = null;
            PermitLease got = result instanceof Optional<?> maybe ? (PermitLease) maybe.orElse(null)
                    : (PermitLease) result;
            if (failure == null && got != null) {
                lease = new PermitHold(got, leaseMillis);
                episode.log(name() + " holds permit " + got.permitId() + " of " + SimConfig.PERMITS + ", safe for "
                        + got.safeFor().toMillis() + " ms");
                promises.told(this);
            } else {
                episode.log(name() + " did not get a permit: " + describe(result, failure));
            }
            next();
        });
    }

    private void started(CompletableFuture<?> call, String semaphore, int permits, String what) {
        waitingFor = call;
        waitingOn = semaphore;
        waitingPermits = permits;
        waitingSince = world.nanoTime();
        episode.log(name() + " " + semaphore + " " + what);
        if (!stopping && world.random().nextInt(12) == 0) {
            later(0, 1_500, "cancels its wait", () -> {
                if (waitingFor == call && call.cancel(true)) {
                    episode.log(name() + " cancelled its wait");
                }
            });
        }
    }

    private void release() {
        if (countedHeld > 0) {
            int permits = countedHeld;
            countedHeld = 0; // sent back: no longer in use, as far as it knows
            episode.log(name() + " releaseAsync(" + permits + ") of " + SimConfig.SEMAPHORE);
            client.semaphore.releaseAsync(permits).whenComplete((ok, failure) -> {
                if (failure != null) {
                    episode.log(name() + " release of " + permits + " permit(s) failed: " + describe(null, failure));
                }
                next();
            });
            return;
        }
        PermitHold held = lease;
        if (held == null) {
            next();
            return;
        }
        promises.readSafeFor(held); // it reads how long it is safe before it lets go
        held.releaseSent = true;
        episode.log(name() + " releases permit " + held.handle.permitId());
        held.handle.releaseAsync().whenComplete((ok, failure) -> {
            lease = null;
            if (failure != null) {
                episode.log(name() + " release of permit " + held.handle.permitId() + " failed: "
                        + describe(null, failure));
            }
            next();
        });
    }

    private static String describe(Object result, Throwable failure) {
        if (failure == null) {
            return String.valueOf(result);
        }
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
