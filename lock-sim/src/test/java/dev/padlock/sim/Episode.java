package dev.padlock.sim;

import dev.padlock.sim.engine.Network;
import dev.padlock.sim.engine.SimServer;
import dev.padlock.sim.engine.World;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One simulated run from a seed: a model Redis, a few clients of the real engine on it, their
 * owners working on every lock kind, faults striking now and then, and the {@link Promises}
 * checked after every event. It ends when its operations are spent and every owner has let go,
 * or at the first broken promise, which it reports with the trace that led there.
 */
final class Episode {
    private static final int TRACE_LINES = Integer.getInteger("padlock.sim.traceLines", 600);
    /** Events an episode may run: ten times what the longest seen took; more means a busy loop. */
    private static final long MAX_EVENTS = 100_000;
    /** How long, in virtual time, the owners have to spend their operations: many times what they need. */
    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** How long, in virtual time, the owners have to let go once the operations are spent. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(90);

    final SimConfig config;
    final long seed;
    final World world;
    final Network network;
    final SimServer server;
    final List<SimClient> clients = new ArrayList<>();
    final List<Owner> owners = new ArrayList<>();
    /** The owners of semaphore permits; none when the episode runs no semaphores. */
    final List<PermitOwner> permitOwners = new ArrayList<>();
    /** The semaphores' promises; null when the episode runs no semaphores (half of them). */
    final SemaphorePromises semaphores;
    private final List<Kind> kinds;
    private final Promises promises;
    private final Deque<String> trace = new ArrayDeque<>();
    private long fingerprint;
    private static final java.util.regex.Pattern PERMIT_ID = java.util.regex.Pattern.compile("\\b[0-9a-f]{32}\\b");
    /** The trace's names of the permit ids seen so far. */
    private final Map<String, String> permitNames = new HashMap<>();
    private final java.util.Map<KnownDefect, Integer> knownFindings = new java.util.EnumMap<>(KnownDefect.class);
    private int operationsLeft;
    /** The semaphore owners' own operations, on top of the locks' (half as many). */
    private int permitOperationsLeft;
    private final Map<Kind, Integer> held = new java.util.EnumMap<>(Kind.class);
    /** When each lock was last changed behind its owners' backs (a force unlock, a restart): virtual nanos. */
    final Map<String, Long> undercut = new HashMap<>();
    /**
     * When the engine last released or gave back an owner's hold by itself (the undo of a wait
     * cancelled or given up on while its call was in flight), by "lock field".
     */
    final Map<String, Long> givenBack = new HashMap<>();
    /** When a script last released, gave back or left each lock (a lock freed then was freed by a call, which publishes). */
    final Map<String, Long> released = new HashMap<>();
    /** The end of the latest fault that strikes every client (a stall, lost messages, a restart). */
    long lastDisturbance;
    private Violation violation;

    /** A broken promise: what, when, and the trace that led there. */
    record Violation(String what, long step, double atMillis, List<String> trace) {
    }

    Episode(SimConfig config, long seed) {
        this.config = config;
        this.seed = seed;
        this.world = new World(seed);
        LeaseOwners.restart();
        this.network = new Network(world);
        this.server = new SimServer(world, network);
        this.operationsLeft = config.episodeOperations();
        this.permitOperationsLeft = config.episodeOperations() / 2;
        List<Kind> all = new ArrayList<>(List.of(Kind.values()));
        // each episode drives two to all six kinds, so that contention on each is high enough
        java.util.Collections.shuffle(all, new java.util.Random(seed));
        this.kinds = all.subList(0, 2 + world.random().nextInt(all.size() - 1));
        server.onRun(command -> {
            if (command.size() > 3 && command.get(1).endsWith("force_release")) {
                undercut.put(command.get(3), world.nanoTime());
            }
            String script = command.size() > 3 ? command.get(1) : "";
            if (script.endsWith("_release") || script.endsWith("_abandon") || script.endsWith("_leave")) {
                released.put(command.get(3), world.nanoTime());
                if (script.equals("multi_release")) {
                    // every lock it names: the lock, its channel and its since, per lock
                    int keys = Integer.parseInt(command.get(2));
                    for (int i = 3; i < 3 + keys; i += 3) {
                        released.put(command.get(i), world.nanoTime());
                    }
                }
            }
            if (script.endsWith("_abandon") || script.endsWith("_release") && !script.endsWith("force_release")) {
                // a release or give-back the engine sent by itself, not an unlock of the owner's
                for (Owner owner : owners) {
                    for (Belief belief : owner.beliefs()) {
                        if (!belief.releasing && belief.kind.keys().contains(command.get(3))
                                && command.subList(4, command.size()).contains(belief.field)) {
                            givenBack.put(belief.kind.lockName() + ' ' + belief.field, world.nanoTime());
                        }
                    }
                }
            }
        });
        server.onUndeclaredKey(what -> fail("a strict server (Dragonfly's rule) refuses this: " + what));
        for (int c = 0; c < config.clients(); c++) {
            String id = "c" + c;
            SimClient client = new SimClient(world, server, id, config, (name, owner) -> leaseLost(id, name, owner));
            clients.add(client);
            for (int o = 1; o <= config.ownersPerClient(); o++) {
                owners.add(new Owner(client, o, world, this));
            }
        }
        // half the episodes run semaphores too, decided apart from the world's chance: an episode
        // without them runs as it did before semaphores were simulated
        java.util.Random semaphoreDice = new java.util.Random(seed ^ 0x5E4A_F0E5_0041L);
        if (semaphoreDice.nextBoolean()) {
            this.semaphores = new SemaphorePromises(this, 2 + semaphoreDice.nextInt(2), 2);
            for (int p = 0; p < config.clients() + 1; p++) {
                permitOwners.add(new PermitOwner(clients.get(p % config.clients()), 1 + p / config.clients(), world,
                        this, semaphores));
            }
        } else {
            this.semaphores = null;
        }
        this.promises = new Promises(this);
        world.beforeEach(event -> log(event.toString()));
    }

    List<Kind> kinds() {
        return kinds;
    }

    /** The kind another owner of the same client holds or waits for now; null when none does. */
    Kind siblingKind(Owner owner) {
        for (Owner other : owners) {
            if (other != owner && other.client == owner.client && !other.idle()) {
                return other.kind();
            }
        }
        return null;
    }

    /** Takes one of the episode's operations; false once they are spent. */
    boolean takeOperation() {
        return operationsLeft-- > 0;
    }

    /** Takes one of the semaphore owners' operations; false once they, or the locks', are spent. */
    boolean takePermitOperation() {
        return operationsLeft > 0 && permitOperationsLeft-- > 0;
    }

    void log(String line) {
        if (semaphores != null) {
            // the engine draws permit ids from a SecureRandom of its own, not from the seed: the
            // trace names them by order of appearance, so a seed still logs the same trace
            line = PERMIT_ID.matcher(line).replaceAll(id -> permitNames.computeIfAbsent(id.group(),
                    first -> "permit-" + (permitNames.size() + 1)));
        }
        String entry = String.format("%10.3f ms  %s", world.millis(), line);
        fingerprint = fingerprint * 31 + entry.hashCode();
        if (trace.size() == TRACE_LINES) {
            trace.pollFirst();
        }
        trace.addLast(entry);
    }

    /** A hash of every line the episode logged: two runs of one seed must give the same. */
    long fingerprint() {
        return fingerprint;
    }

    private void leaseLost(String clientId, String lockName, long owner) {
        LeaseHold lease = promises.leases.lease(owner);
        if (lease != null) {
            promises.leases.heard(owner, lockName);
            owners.forEach(o -> o.leaseLost(lease, lockName));
            return;
        }
        for (Owner o : owners) {
            if (o.client.id.equals(clientId) && o.id == owner) {
                o.leaseLost(lockName);
            }
        }
    }

    /** A broken promise by a named mechanism: fails the run, unless relaxed for exploring (see {@link KnownDefect}). */
    void known(KnownDefect defect, String what) {
        log("KNOWN (" + defect + "): " + what);
        knownFindings.merge(defect, 1, Integer::sum);
        if (defect.strict()) {
            fail(defect + ": " + what);
        }
    }

    /** Counts an acquisition told held. */
    void held(Kind kind) {
        held.merge(kind, 1, Integer::sum);
    }

    java.util.Map<Kind, Integer> held() {
        return held;
    }

    /** Acquisitions told held of the semaphores: counted permits, then permit leases. */
    int[] permitsHeld() {
        return semaphores == null ? new int[2] : semaphores.held();
    }

    java.util.Map<KnownDefect, Integer> knownFindings() {
        return knownFindings;
    }

    /** Reports a broken promise; the run stops after the event that broke it. */
    void fail(String what) {
        if (violation == null) {
            log("BROKEN: " + what);
            server.model().snapshot().forEach((key, entry) -> log("  redis " + key + " = " + entry));
            violation = new Violation(what, world.steps(), world.millis(), List.copyOf(trace));
        }
    }

    /** The lease API's promises. */
    LeasePromises leases() {
        return promises.leases;
    }

    /** The told-held check of {@link Promises}, right when an owner is told. */
    void checkTold(Belief belief) {
        promises.told(belief);
    }

    /** Runs the episode to its end, or to at most {@code stepLimit} events; returns the first broken promise. */
    Violation run(long stepLimit) {
        if (semaphores != null) {
            semaphores.setUp();
        }
        owners.forEach(Owner::start);
        permitOwners.forEach(PermitOwner::start);
        if (config.faults()) {
            planFaults();
            network.expiryFaults(0.02); // one command in fifty reaches Redis exactly at its key's expiry
        }
        long drainFrom = -1;
        while (violation == null && world.steps() < stepLimit) {
            World.Event event = world.step(Long.MAX_VALUE);
            if (event == null) {
                break;
            }
            promises.afterStep();
            if (world.steps() > MAX_EVENTS) {
                loopsWithoutWaiting();
                break;
            }
            if (drainFrom < 0 && world.nanoTime() > MAX_NANOS) {
                blocked("were still at work " + TimeUnit.NANOSECONDS.toMinutes(MAX_NANOS) + " minutes in");
                break;
            }
            if (drainFrom < 0 && operationsLeft <= 0) {
                drainFrom = world.nanoTime();
                network.messageFaults(0, 0);
                network.expiryFaults(0);
                owners.forEach(Owner::stop);
                permitOwners.forEach(PermitOwner::stop);
            }
            if (drainFrom >= 0 && owners.stream().allMatch(Owner::idle)
                    && permitOwners.stream().allMatch(PermitOwner::idle)) {
                // let renewals, give-backs and leases run out, then nothing may be held
                long settled = world.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                        Math.max(config.watchdogMillis(), Owner.LONG_LEASE_MILLIS) + 6_000);
                while (violation == null && world.steps() <= MAX_EVENTS && world.step(settled) != null) {
                    promises.afterStep();
                }
                world.advanceTo(settled);
                if (violation == null) {
                    promises.atQuiescence();
                }
                if (violation == null && semaphores != null) {
                    semaphores.atQuiescence();
                }
                if (violation == null) {
                    promises.leases.atEnd();
                }
                break;
            }
            if (drainFrom >= 0 && world.nanoTime() - drainFrom > DRAIN_NANOS) {
                blocked("did not let go within " + TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS)
                        + " s once the operations were spent");
                break;
            }
        }
        // the clients are not closed: close() waits (on this one thread, in real time) for the
        // client registry's DEL, and an episode's timers and connections are virtual anyway
        return violation;
    }

    /**
     * Owners that never got on: blocked by a hold of a known defect that the watchdog keeps
     * (counted), or a finding.
     */
    private void blocked(String what) {
        String ghost = promises.ghostHolder();
        if (ghost != null) {
            known(KnownDefect.GHOST_HOLD_RENEWED, "the owners " + what + ", blocked by a hold of " + ghost);
            return;
        }
        fail("the owners " + what + ": " + owners.stream().filter(o -> !o.idle())
                .map(o -> o.client.id + "/" + o.id + " on " + o.kind() + " waiting " + o.waiting).toList()
                + permitOwners.stream().filter(o -> !o.idle()).map(PermitOwner::state).toList());
    }

    /**
     * The episode ran {@link #MAX_EVENTS} events: owners that poll (a red lock's, a spin lock's)
     * behind a hold of a known defect that the watchdog keeps (counted, as {@link #blocked} counts
     * owners that wait behind one), or a finding.
     */
    private void loopsWithoutWaiting() {
        String where = "the episode ran " + MAX_EVENTS + " events without ending, at " + world.millis() + " ms virtual";
        String ghost = promises.ghostHolder();
        if (ghost != null) {
            known(KnownDefect.GHOST_HOLD_RENEWED, where + ", its owners polling behind a hold of " + ghost);
            return;
        }
        fail(where + ": something loops without waiting");
    }

    /** Faults at random times while the operations last: about one per ten operations. */
    private void planFaults() {
        long horizon = TimeUnit.MILLISECONDS.toNanos(config.episodeOperations() * 400L / config.clients());
        int faults = Math.max(1, config.episodeOperations() / 10);
        World.Actor planner = new World.Actor("faults");
        for (int i = 0; i < faults; i++) {
            long at = world.random().nextLong(horizon);
            world.at(at, planner, "fault", this::strike);
        }
    }

    private void strike() {
        if (operationsLeft <= 0) {
            return;
        }
        int which = world.random().nextInt(100);
        long now = world.nanoTime();
        if (which < 20) {
            long millis = 50 + world.random().nextLong(1_500);
            log("FAULT: the server stalls for " + millis + " ms");
            server.stall(millis);
            disturbed(now + TimeUnit.MILLISECONDS.toNanos(millis));
        } else if (which < 40) {
            SimClient client = clients.get(world.random().nextInt(clients.size()));
            long millis = 50 + world.random().nextLong(1_500);
            log("FAULT: client " + client.id + " pauses for " + millis + " ms");
            client.actor.pauseUntil(now + TimeUnit.MILLISECONDS.toNanos(millis));
            client.pausedUntil = client.actor.pausedUntil();
            client.disturbed(now + TimeUnit.MILLISECONDS.toNanos(millis));
        } else if (which < 55) {
            SimClient client = clients.get(world.random().nextInt(clients.size()));
            log("FAULT: client " + client.id + " loses its connections");
            client.backend.dropConnections();
            client.disturbed(now + TimeUnit.MILLISECONDS.toNanos(400));
        } else if (which < 70) {
            long millis = 100 + world.random().nextLong(1_500);
            log("FAULT: pub/sub messages are lost or held back for " + millis + " ms");
            network.messageFaults(0.3, 0.2);
            world.after(millis, TimeUnit.MILLISECONDS, null, "messages flow again", () -> network.messageFaults(0, 0));
            disturbed(now + TimeUnit.MILLISECONDS.toNanos(millis) + TimeUnit.MILLISECONDS.toNanos(400));
        } else if (which < 95) {
            SimClient client = clients.get(world.random().nextInt(clients.size()));
            Kind kind = kinds.get(world.random().nextInt(kinds.size()));
            // half the time a lock that an owner of the forcing client holds: the client's own view
            // of it must let go too, and a sibling that force-unlocked it to take it must get it
            Owner aimed = world.chance(0.5) ? stuckLooking(client) : null;
            if (aimed != null) {
                kind = aimed.kind();
                aimed.holdOn(); // it does not know: it works on for a while before it unlocks
                for (Owner sibling : owners) {
                    if (sibling.client == client && sibling != aimed && sibling.forceUnlockAndTake(kind)) {
                        return;
                    }
                }
            }
            log("OPERATION: " + client.id + " force-unlocks " + kind);
            client.lock(kind).forceUnlockAsync();
        } else if (semaphores != null) {
            // a restart that lost the data loses the semaphores' counts, which nothing restores (the
            // count is the semaphore): episodes with semaphores stall the server instead
            long millis = 50 + world.random().nextLong(1_500);
            log("FAULT: the server stalls for " + millis + " ms (in place of a restart: semaphores run)");
            server.stall(millis);
            disturbed(now + TimeUnit.MILLISECONDS.toNanos(millis));
        } else {
            log("FAULT: the server restarts with no data");
            server.restartEmpty();
            for (Kind kind : Kind.values()) {
                kind.keys().forEach(key -> undercut.put(key, now));
            }
            disturbed(now + TimeUnit.MILLISECONDS.toNanos(400));
        }
    }

    /** A sibling of {@code owner} that holds a lock on a fixed lease with more than 3 s left; null when none does. */
    Owner stuckSibling(Owner owner) {
        long soon = world.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (Owner other : owners) {
            long until = other.holdsUntil();
            if (other != owner && other.client == owner.client && until != Long.MAX_VALUE && until > soon) {
                return other;
            }
        }
        return null;
    }

    /**
     * The owner of {@code client} whose lock looks stuck the most, as whoever force-unlocks picks:
     * the hold on the longest fixed lease (the watchdog's holds come after, then waits); null when
     * all its owners are idle.
     */
    private Owner stuckLooking(SimClient client) {
        Owner aimed = null;
        long longest = -1;
        for (Owner owner : owners) {
            if (owner.client == client && owner.kind() != null && !owner.idle()) {
                long until = owner.holdsUntil();
                long score = until == Long.MAX_VALUE ? 1 : until == 0 ? 0 : until;
                if (score > longest) {
                    aimed = owner;
                    longest = score;
                }
            }
        }
        return aimed;
    }

    private void disturbed(long until) {
        lastDisturbance = Math.max(lastDisturbance, until);
    }

    /** The end of the latest fault that could delay {@code client}'s waiters: a waiter on a free lock is timed from here. */
    long lastDisturbanceOf(SimClient client) {
        return Math.max(lastDisturbance, client.lastDisturbance);
    }
}
