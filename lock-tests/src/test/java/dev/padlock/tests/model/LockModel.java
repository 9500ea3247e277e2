package dev.padlock.tests.model;

import static dev.padlock.tests.model.ModelBook.NEVER;
import static dev.padlock.tests.model.ModelBook.millis;
import static dev.padlock.tests.model.ModelBook.nanos;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.internal.PadlockClient;
import dev.padlock.testing.Cleanup;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.tests.model.ModelBook.Force;
import dev.padlock.tests.model.ModelBook.Hold;
import dev.padlock.tests.model.ModelBook.Kind;
import dev.padlock.tests.model.ModelBook.LeaseLost;
import dev.padlock.tests.model.ModelBook.Mode;
import dev.padlock.tests.model.ModelBook.NameLog;
import dev.padlock.tests.model.ModelBook.Owner;
import dev.padlock.tests.model.ModelBook.Pending;
import dev.padlock.tests.model.ModelBook.Segment;
import dev.padlock.tests.model.ModelBook.Side;
import dev.padlock.tests.model.ModelBook.State;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The state of one {@link LockModelTest} sequence: two real Padlock clients and a Redisson client
 * on a real Redis, their owners, the acquisitions in flight, and the {@link ModelBook model} of who
 * holds what. Every action runs on the test thread, then {@link #check()} compares the model with
 * Redis and with the futures. A violation throws {@link AssertionError} with the sequence's trace.
 *
 * <p>Names come in two families: exclusive names, which the plain, spin, fenced and fair locks
 * (and Redisson's {@code RLock}) share, and read-write names, for both sides of the read-write
 * locks of both libraries.
 */
final class LockModel implements AutoCloseable {
    static final long WATCHDOG_MILLIS = 1500;
    static final long COMMAND_TIMEOUT_MILLIS = 1000;
    /**
     * Bound on a waiter getting a lock Redis shows free: well below the leases that would free it
     * ({@value #LONG_LEASE_MILLIS} ms), and generous for a loaded 2-core machine (it was 3 s, which a
     * busy scheduler could take).
     */
    static final long LIVENESS_MILLIS = 6000;
    /**
     * The same bound right after an unlock or forceUnlock, which publish to the waiters: a wake-up
     * takes a few ms; 3 s (it was 1 s) is what a loaded machine meets.
     */
    static final long PROMPT_LIVENESS_MILLIS = 3000;
    /** Bound on a call that should answer at once: the contract allows twice the command timeout. */
    static final long CALL_MILLIS = 2 * COMMAND_TIMEOUT_MILLIS + 1000;
    /** A fixed-lease holder is "definite" until this long before the earliest end of its lease. */
    static final long LEASE_MARGIN_NANOS = nanos(100);
    /** ... and "maybe" until this long after the latest end of its lease. */
    static final long LEASE_SLACK_NANOS = nanos(200);
    /** How far a TTL on Redis may be below what the model computes: Redis counts in whole ms, by its clock. */
    static final long TTL_TOLERANCE_MILLIS = 30;
    /**
     * How long a watchdog lease-lost report may take to arrive: one renewal period and some, with
     * room for a busy machine. Waited for only when a check would otherwise fail.
     */
    static final long LOST_REPORT_MILLIS = 3 * WATCHDOG_MILLIS;
    /** A lease long enough to matter: one a grant lease (two command timeouts) is far below. */
    static final long LONG_LEASE_MILLIS = 20_000;
    /** Redisson's owners use fixed leases only (Redisson tells nobody of a lost watchdog lease): this one for "watchdog". */
    static final long REDISSON_LEASE_MILLIS = 3_000;
    /** A long wait: long enough for a waiter to count in the liveness check (its bound + 500 ms and more). */
    static final long LONG_WAIT_MILLIS = 10_000;
    /** The deepest re-entry: an owner at this hold count unlocks once instead. */
    static final int MAX_DEPTH = 3;
    static final long ASYNC_ID_BASE = 7_000_000;
    static final long REDISSON_ID_BASE = 9_000_000;
    static final int ASYNC_OWNERS_PER_CLIENT = 3;
    static final int THREAD_OWNERS_PER_CLIENT = 1;
    static final int REDISSON_OWNERS = 2;
    static final int OWNERS = 2 * (ASYNC_OWNERS_PER_CLIENT + THREAD_OWNERS_PER_CLIENT) + REDISSON_OWNERS;
    /** Names per family (exclusive, read-write). */
    static final int NAMES = 2;

    private static final AtomicLong SEQUENCES = new AtomicLong();
    /** What was exercised, across sequences: printed at the end of the run. */
    static final Map<String, java.util.concurrent.atomic.LongAdder> EXERCISED = new java.util.concurrent.ConcurrentSkipListMap<>();
    /**
     * For diagnosis only: checks named in the system property {@code padlock.model.skip}
     * (comma-separated: mixed (see {@link #MIXED}), leftovers, leftovers-fair, expiry, liveness, liveness-fair, tryonce, counts, counts-mixed, counts-twowaits, ttl, phantom, reentry) are
     * noted in the trace instead of failing, so that a run can get past a known violation to the next one.
     */
    private static final java.util.Set<String> SKIP = java.util.Set.copyOf(
            java.util.Arrays.asList(System.getProperty("padlock.model.skip", "").split(",")));
    /**
     * Whether one exclusive hold may go through both the fair lock and the kinds of the client's
     * local view (plain, spin, fenced): re-entries, unlocks and second waits. For diagnosis only,
     * {@code mixed} in {@code padlock.model.skip} keeps each hold in one family.
     */
    private static final boolean MIXED = !SKIP.contains("mixed");

    private final RedisAdmin admin;
    private final RedisCommands<String, String> redis;
    private final RedisView view;
    private final List<PadlockClient> clients = new ArrayList<>();
    private final RedissonActor redisson;
    private final List<Owner> owners = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final List<String> rwNames = new ArrayList<>();
    private final Map<String, NameLog> logs = new HashMap<>();
    private final Map<String, Hold> holds = new LinkedHashMap<>();
    /**
     * Holds the model stopped believing in without their owner's unlock (a force, a DEL, the end of
     * a lease): their owners, told they held, still unlock at the end, as a program does.
     */
    private final List<Hold> forgotten = new ArrayList<>();
    private final Map<String, RLock> lockObjects = new HashMap<>();
    private final Map<String, AtomicLong> grants = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Pending> completed = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<LeaseLost> lost = new ConcurrentLinkedQueue<>();
    private final List<LeaseLost> lostSeen = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();
    private final long startedAt = System.nanoTime();
    private final long sequence = SEQUENCES.incrementAndGet();
    private int steps;
    private long stepStartedAt;
    /** When the latest SCRIPT FLUSH was sent ({@link System#nanoTime()}). */
    private long lastScriptFlushAt = Long.MIN_VALUE;
    /** Per name: the latest call of a release that publishes (final unlock, forceUnlock). */
    private final Map<String, Long> publishedReleaseAt = new HashMap<>();
    /** Per name: the kind the latest final unlock went through. */
    private final Map<String, Kind> lastReleaseKind = new HashMap<>();
    /**
     * Per name: until when an external DEL may leave waiters parked. A DEL publishes nothing, and a
     * waiter parks for at most the lease it last saw (the contract), so until the lease Redis had
     * when the DEL ran is over, a waiter that saw it may still sleep.
     */
    private final Map<String, Long> silentlyFreedUntil = new HashMap<>();
    /**
     * Names a Padlock hold taken through the client's local view (plain, spin, fenced) was released
     * from through the fair lock: that client's local view of the name may be stale from then on.
     */
    private final java.util.Set<String> fairReleasedLocal = new java.util.HashSet<>();
    private boolean closed;

    LockModel(RedisAdmin admin, String uri, RedissonActor redisson) {
        this.admin = admin;
        this.redis = admin.commands();
        this.view = new RedisView(redis);
        this.redisson = redisson;
        try {
            for (int c = 0; c < 2; c++) {
                int client = c;
                clients.add((PadlockClient) LockClient.create(LockConfig.builder()
                        .redisUri(uri)
                        .watchdogTimeout(Duration.ofMillis(WATCHDOG_MILLIS))
                        .commandTimeout(Duration.ofMillis(COMMAND_TIMEOUT_MILLIS))
                        .leaseLostListener((name, threadId) ->
                                lost.add(new LeaseLost(client, name, threadId, System.nanoTime())))
                        .build()));
            }
            for (int c = 0; c < 2; c++) {
                for (int i = 0; i < ASYNC_OWNERS_PER_CLIENT; i++) {
                    owners.add(new Owner(owners.size(), c, ASYNC_ID_BASE + owners.size(), null, null));
                }
                for (int i = 0; i < THREAD_OWNERS_PER_CLIENT; i++) {
                    AtomicReference<Thread> worker = new AtomicReference<>();
                    int index = owners.size();
                    ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
                        Thread t = new Thread(task, "model-owner-" + sequence + "-" + index);
                        t.setDaemon(true);
                        worker.set(t);
                        return t;
                    });
                    long id = thread.submit(() -> Thread.currentThread().getId()).get(5, TimeUnit.SECONDS);
                    owners.add(new Owner(index, c, id, thread, worker.get()));
                }
            }
            for (int i = 0; i < REDISSON_OWNERS; i++) {
                // ids of this sequence only: the Redisson client serves every sequence
                owners.add(new Owner(owners.size(), Owner.REDISSON, REDISSON_ID_BASE + sequence * 100 + owners.size(),
                        null, null));
            }
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot open the model's clients", e);
        }
        for (int n = 0; n < NAMES; n++) {
            String name = "model:" + sequence + ":" + (char) ('a' + n);
            names.add(name);
            String rwName = "model:" + sequence + ":rw-" + (char) ('a' + n);
            rwNames.add(rwName);
            for (String each : List.of(name, rwName)) {
                logs.put(each, new NameLog());
                grants.put(each, new AtomicLong());
            }
        }
        note("sequence " + sequence + ": clients c0=" + clients.get(0).getId() + " c1=" + clients.get(1).getId()
                + " c2 (Redisson)=" + redisson.id() + ", owners " + owners);
    }

    int steps() {
        return steps;
    }

    static void count(String what) {
        EXERCISED.computeIfAbsent(what, k -> new java.util.concurrent.atomic.LongAdder()).increment();
    }

    private String name(int index, Kind kind) {
        return kind.readWrite() ? rwNames.get(index % NAMES) : names.get(index % NAMES);
    }

    private boolean readWrite(String name) {
        return rwNames.contains(name);
    }

    private List<String> allNames() {
        List<String> all = new ArrayList<>(names);
        all.addAll(rwNames);
        return all;
    }

    // ------------------------------------------------------------------ actions

    /**
     * An acquisition by the owner at {@code ownerIndex} (or the next idle one) of a name of
     * {@code kind}'s family: a re-entrant one (through any kind of the same side, with the lease kind
     * of the hold) when it holds the name, up to {@value #MAX_DEPTH} deep (then an inner unlock
     * instead); a downgrade (an immediate read hold) by a writer; a write asked by a reader becomes a
     * read re-entry (a read lock is never upgraded).
     */
    void acquire(int ownerIndex, int nameIndex, Kind kind, Mode mode, long leaseMillis, long waitMillis) {
        begin();
        Owner owner = idleOwner(ownerIndex);
        String name = name(nameIndex, kind);
        if (owner == null) {
            note("acquire: every owner is busy");
            end();
            return;
        }
        if (owner.redisson()) {
            // Redisson: bounded waits (its futures are not cancelled) and fixed leases
            mode = mode == Mode.LOCK ? Mode.TRY_LONG : mode;
            leaseMillis = leaseMillis <= 0 ? REDISSON_LEASE_MILLIS : leaseMillis;
            kind = kind.readWrite() ? kind : Kind.LOCK;
        }
        long now = System.nanoTime();
        if (kind == Kind.WRITE) {
            Hold read = holds.get(key(owner, name, Side.READ));
            if (read != null && read.state(now) != State.NONE) {
                kind = Kind.READ; // no upgrade: it would wait on itself
            }
        }
        Hold hold = holds.get(key(owner, name, kind.side()));
        State state = hold == null ? State.NONE : hold.state(now);
        if (state == State.MAYBE) {
            unlockHolder(owner, name, kind.side(), kind); // an owner in doubt first finds out
            end();
            return;
        }
        if (state == State.DEFINITE) {
            if (hold.count >= MAX_DEPTH) {
                unlockHolder(owner, name, kind.side(), kind);
            } else {
                reenter(owner, hold, kind, mode, leaseMillis, waitMillis);
            }
            end();
            return;
        }
        Hold write = holds.get(key(owner, name, Side.WRITE));
        if (kind == Kind.READ && write != null && write.state(now) == State.DEFINITE) {
            downgrade(owner, write, leaseMillis);
            end();
            return;
        }
        count("acquire " + (owner.redisson() ? "Redisson " : "") + kind);
        if (mode == Mode.TRY_ONCE) {
            tryOnce(owner, name, kind, leaseMillis);
            end();
            return;
        }
        Pending pending = start(owner, name, kind, mode, leaseMillis, waitOf(mode, waitMillis), false);
        awaitQuietly(pending.result, 30); // a free lock answers now; else it is a waiter
        end();
    }

    /**
     * A second wait: an asynchronous Padlock owner (the {@code pick}-th) whose one acquisition still
     * waits starts another on the same name and side, through {@code kind} when it fits that side.
     * Each that succeeds is a hold of its own.
     */
    void secondWait(int pick, Kind kind, Mode mode, long leaseMillis, long waitMillis) {
        begin();
        List<Owner> candidates = owners.stream().filter(o -> !o.threaded() && !o.redisson()
                && o.pendings.size() == 1 && !o.pendings.get(0).reentrant && !o.pendings.get(0).givenUp
                && !o.pendings.get(0).result.isDone()).toList();
        if (candidates.isEmpty()) {
            note("second wait: nobody waits");
            end();
            return;
        }
        Owner owner = candidates.get(pick % candidates.size());
        Pending first = owner.pendings.get(0);
        // a second wait stays in the first one's family (fair, or the local view's plain, spin and
        // fenced): one owner waiting through both families at once is a known limit (docs/contributing.md, "The
        // model-based test"), while holds taken one after the other may mix them
        Kind candidate = kind.readWrite() ? Kind.values()[pick % 4] : kind;
        Kind second = first.kind.readWrite() ? first.kind
                : first.kind == Kind.FAIR ? Kind.FAIR : candidate == Kind.FAIR ? Kind.LOCK : candidate;
        count("second wait " + second);
        Pending pending = start(owner, first.name, second, mode, leaseMillis, waitOf(mode, waitMillis), false);
        pending.second = true;
        awaitQuietly(pending.result, 30);
        end();
    }

    /** {@code kind}, or one of the same family as a hold (fair or not) when holds must not mix them. */
    private static Kind sameFamily(boolean fair, Kind kind) {
        if (MIXED) {
            return kind;
        }
        return fair ? Kind.FAIR : kind == Kind.FAIR ? Kind.LOCK : kind;
    }

    private static long waitOf(Mode mode, long waitMillis) {
        return switch (mode) {
            case LOCK -> -1;
            case TRY_ONCE -> 0;
            case TRY_WAIT -> waitMillis;
            case TRY_LONG -> LONG_WAIT_MILLIS;
        };
    }

    /**
     * A multi lock over both exclusive names, through the plain locks of an idle asynchronous Padlock
     * owner (the {@code ownerIndex}-th or the next) that holds neither (issue 41: one script call each
     * way while the client's views of them are idle, else one by one): a one-shot tryLock with a long
     * fixed lease, unlocked at once when taken. Taken, the owner certainly holds both from the answer
     * to the unlock's call (a segment each, checked against every other holding), Redis shows its
     * field once on each, and the unlock publishes (waiters then get the names promptly); not taken,
     * no field of it is left on either.
     */
    void multiOnce(int ownerIndex) {
        begin();
        long now = System.nanoTime();
        Owner owner = null;
        for (int i = 0; i < owners.size() && owner == null; i++) {
            Owner candidate = owners.get((ownerIndex + i) % owners.size());
            if (candidate.idle() && !candidate.redisson() && !candidate.threaded() && names.stream().allMatch(name -> {
                Hold hold = holds.get(key(candidate, name, Side.EXCLUSIVE));
                return hold == null || hold.state(now) == State.NONE;
            })) {
                owner = candidate;
            }
        }
        if (owner == null) {
            note("multiOnce: no idle asynchronous owner that holds neither name");
            end();
            return;
        }
        Owner taker = owner;
        RLock multi = clients.get(taker.client).getMultiLock(
                names.stream().map(name -> lock(taker.client, name, Kind.LOCK)).toArray(RLock[]::new));
        String what = taker + " multi tryLock(" + names + ", lease " + LONG_LEASE_MILLIS + "ms)";
        note(what);
        count("multi lock of plain locks");
        CompletableFuture<Boolean> taken = multi.tryLockAsync(0, LONG_LEASE_MILLIS, TimeUnit.MILLISECONDS, taker.id);
        if (!awaitQuietly(taken, CALL_MILLIS)) {
            fail(what + " did not answer within " + CALL_MILLIS + " ms");
        }
        long at = System.nanoTime();
        Throwable failure = failureOf(taken);
        String field = field(taker, Side.EXCLUSIVE);
        if (failure != null || !taken.join()) {
            note("  -> " + (failure != null ? failure : "false"));
            for (String name : names) {
                if (failure == null && redis.hgetall(name).containsKey(field)) {
                    violation("multi", what + " answered false and left its field on " + name + ": "
                            + redis.hgetall(name));
                }
            }
            end();
            return;
        }
        count("multi lock taken");
        List<Segment> segments = new ArrayList<>();
        for (String name : names) {
            Map<String, String> onRedis = redis.hgetall(name);
            if (!"1".equals(onRedis.get(field))) {
                violation("multi", what + " answered true, but Redis shows " + name + " as " + onRedis);
            }
            Segment segment = new Segment(taker, name, Side.EXCLUSIVE, at, NEVER, "multi lock");
            addSegment(segment);
            segments.add(segment);
        }
        long unlockAt = System.nanoTime();
        for (Segment segment : segments) {
            segment.end = unlockAt;
            publishedReleaseAt.put(segment.name, unlockAt);
            lastReleaseKind.put(segment.name, Kind.LOCK);
        }
        Throwable unlocked = call(() -> multi.unlockAsync(taker.id), taker + " unlocks the multi lock");
        if (unlocked != null) {
            fail("the unlock of " + what + " failed with " + unlocked, unlocked);
        }
        end();
    }

    /** An unlock by a holder (the {@code pick}-th that may act now), through a kind of its side. */
    void unlock(int pick, Kind kind) {
        begin();
        long now = System.nanoTime();
        List<Hold> candidates = holds.values().stream()
                .filter(h -> h.owner.free() && h.state(now) != State.NONE).toList();
        if (candidates.isEmpty()) {
            note("unlock: no holder free to act");
        } else {
            Hold hold = candidates.get(pick % candidates.size());
            unlockHolder(hold.owner, hold.name, hold.side, kind);
        }
        end();
    }

    /** An unlock by an idle owner that does not hold the name (on that side): IllegalMonitorStateException. */
    void unlockByNonHolder(int ownerIndex, int nameIndex, Kind kind) {
        begin();
        Owner owner = idleOwner(ownerIndex);
        String name = name(nameIndex, kind);
        Kind through = owner != null && owner.redisson() && !kind.readWrite() ? Kind.LOCK : kind;
        long now = System.nanoTime();
        boolean holds = owner != null && (kind.readWrite()
                ? held(owner, name, Side.READ, now) || held(owner, name, Side.WRITE, now)
                : held(owner, name, Side.EXCLUSIVE, now));
        if (owner == null || holds) {
            note("unlock by non-holder: no idle non-holder at " + ownerIndex);
            end();
            return;
        }
        Throwable failure = call(() -> unlockFuture(owner, name, through), "unlock by non-holder " + owner + " "
                + through + " of " + name);
        if (failure == null) {
            violation("phantom", owner + " unlocked " + name + " through " + through
                    + " without holding it: Redis had its field (a phantom hold)");
        } else if (!(failure instanceof IllegalMonitorStateException)) {
            fail(owner + "'s unlock of " + name + " (not held) failed with " + failure + " instead of "
                    + "IllegalMonitorStateException", failure);
        } else {
            note("  -> IllegalMonitorStateException, as expected");
        }
        end();
    }

    private boolean held(Owner owner, String name, Side side, long now) {
        Hold hold = holds.get(key(owner, name, side));
        return hold != null && hold.state(now) != State.NONE;
    }

    /** {@code forceUnlock} through client {@code clientIndex} (2: Redisson). */
    void forceUnlock(int clientIndex, int nameIndex, Kind kind) {
        begin();
        String name = name(nameIndex, kind);
        if (clientIndex == Owner.REDISSON) {
            Kind through = kind.readWrite() ? kind : Kind.LOCK;
            force(name, clientIndex, "forceUnlock by Redisson through " + through, () -> redisson.forceUnlock(name, through),
                    kind);
        } else {
            RLock lock = lock(clientIndex, name, kind);
            force(name, clientIndex, "forceUnlock by c" + clientIndex + " through " + kind, lock::forceUnlockAsync, kind);
        }
        end();
    }

    /** An external {@code DEL} of the lock key (of either family: {@code nameIndex} counts both). */
    void delete(int nameIndex) {
        begin();
        String name = allNames().get(nameIndex % (2 * NAMES));
        long ttl = view.pttl(name);
        if (ttl > 0) {
            silentlyFreedUntil.merge(name, System.nanoTime() + nanos(ttl), Math::max);
        }
        force(name, -1, "external DEL", () -> CompletableFuture.completedFuture(redis.del(name) > 0), null);
        end();
    }

    /** {@code SCRIPT FLUSH}: the next EVALSHA of every script is answered NOSCRIPT. */
    void scriptFlush() {
        begin();
        note("SCRIPT FLUSH");
        lastScriptFlushAt = System.nanoTime();
        admin.scriptFlush();
        end();
    }

    /**
     * Whether {@code pending} is a Redisson acquisition that failed on NOSCRIPT after a SCRIPT
     * FLUSH: Redisson loads its script and then sends EVALSHA, and a flush between the two reaches
     * its caller (seen in CI). NOSCRIPT means the script did not run: nothing of this call is on
     * Redis. Padlock's own calls load the script again and retry (checked, not excused).
     */
    private boolean redissonNoScript(Pending pending, Throwable failure) {
        if (!pending.owner.redisson() || lastScriptFlushAt == Long.MIN_VALUE || lastScriptFlushAt > pending.doneAt) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.redisson.client.RedisNoScriptException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a Redisson {@code tryLock} with a wait failed because its subscription was not
     * confirmed within the wait ("Unable to acquire subscription lock"): Redisson 4.7 throws then
     * rather than answering false. Its one attempt before subscribing was refused, so it holds
     * nothing. Seen once on a loaded machine, with a 100 ms wait.
     */
    private static boolean redissonSubscriptionTimeout(Pending pending, Throwable failure) {
        if (!pending.owner.redisson()) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.redisson.client.RedisTimeoutException && String.valueOf(t.getMessage())
                    .startsWith("Unable to acquire subscription lock")) {
                return true;
            }
        }
        return false;
    }

    /** A pause, long enough for short fixed leases to run out. */
    void pause(long millis) {
        begin();
        note("pause " + millis + " ms");
        waitDraining(millis);
        end();
    }

    /**
     * Redis stalls: {@code CLIENT PAUSE} for less than the command timeout, so nothing times out;
     * whatever was in flight (acquisitions, grants, their settling, renewals) lands after it. Then
     * the checks: every owner that believes it holds has its field and a TTL its lease allows.
     */
    void stall(long millis) {
        begin();
        count("stall");
        note("stall: CLIENT PAUSE " + millis + " ms");
        redis.clientPause(millis);
        waitDraining(millis);
        redis.ping(); // answered once the pause is over
        end();
    }

    private void waitDraining(long millis) {
        long until = System.nanoTime() + nanos(millis);
        while (System.nanoTime() < until) {
            drain();
            sleep(Math.min(50, Math.max(1, millis(until - System.nanoTime()))));
        }
    }

    /** An owner in an acquisition (the {@code pick}-th) gives up: the future is cancelled or the thread interrupted. */
    void giveUp(int pick) {
        begin();
        List<Pending> waiting = owners.stream().filter(o -> !o.redisson())
                .flatMap(o -> o.pendings.stream()).filter(p -> !p.givenUp).toList();
        if (waiting.isEmpty()) {
            note("give up: nobody waits");
        } else {
            cancel(waiting.get(pick % waiting.size()));
        }
        end();
    }

    // ------------------------------------------------------------------ the end of a sequence

    /**
     * Everybody gives up and unlocks (Redisson's waiters, which are not cancelled, get the names
     * and unlock them too, or their waits end); then nothing may be left: no lock key, no local
     * queue, no renewal, no channel in use, no key without expiry but fencing counters.
     */
    void finish() {
        note("finish: give up, unlock all");
        for (Owner owner : owners) {
            for (Pending pending : new ArrayList<>(owner.pendings)) {
                if (!owner.redisson()) {
                    cancel(pending);
                }
            }
        }
        long deadline = System.nanoTime() + nanos(CALL_MILLIS);
        for (Owner owner : owners) {
            for (Pending pending : new ArrayList<>(owner.pendings)) {
                if (!owner.redisson() && !awaitQuietly(pending.result, Math.max(1, millis(deadline - System.nanoTime())))) {
                    fail(pending + " did not end after it gave up (cancelled / interrupted)");
                }
            }
        }
        long redissonDeadline = System.nanoTime() + nanos(LONG_WAIT_MILLIS + CALL_MILLIS);
        while (true) {
            drain();
            for (Hold hold : new ArrayList<>(holds.values())) {
                for (int i = 0; i < 10 && holds.get(key(hold.owner, hold.name, hold.side)) == hold
                        && hold.owner.free(); i++) {
                    unlockHolder(hold.owner, hold.name, hold.side, hold.side == Side.EXCLUSIVE ? Kind.LOCK
                            : hold.side == Side.READ ? Kind.READ : Kind.WRITE);
                }
            }
            drain();
            if (owners.stream().allMatch(Owner::idle) && holds.isEmpty()) {
                break;
            }
            if (System.nanoTime() > redissonDeadline) {
                fail("finish: acquisitions still in flight long after their waits ended: "
                        + owners.stream().flatMap(o -> o.pendings.stream()).toList() + ", holds " + holds.keySet());
            }
            sleep(20);
        }
        for (Hold hold : forgotten) {
            if (!holds.containsKey(key(hold.owner, hold.name, hold.side))) {
                Kind through = hold.side == Side.READ ? Kind.READ : hold.side == Side.WRITE ? Kind.WRITE : Kind.LOCK;
                Throwable failure = call(() -> unlockFuture(hold.owner, hold.name, through), "unlock by " + hold.owner
                        + " of " + hold.name + " through " + through + " (it was told it held, and never unlocked)");
                note("  -> " + (failure == null ? "ok" : failure.getClass().getSimpleName()));
                if (failure != null && !(failure instanceof IllegalMonitorStateException)) {
                    fail("the unlock of a lost hold failed with " + failure, failure);
                }
            }
        }
        String left = awaitTrue(() -> leftBehind().isEmpty(), 10_000) ? "" : leftBehind();
        if (!left.isEmpty()) {
            // a local holder left on a name whose local-view hold was released through the fair lock
            boolean fair = allNames().stream().filter(n -> left.contains("[" + n + ":") || left.contains(" " + n + ":"))
                    .allMatch(fairReleasedLocal::contains) && !redisKeyLeft();
            violation(fair ? "leftovers-fair" : "leftovers", "after every owner unlocked or gave up, left behind: " + left
                    + (fair ? " (a hold taken through plain/spin/fenced was released through the fair lock)" : ""));
        }
        List<String> forever = awaitTrue(() -> view.keysWithoutExpiry().isEmpty(), 10_000) ? List.of()
                : view.keysWithoutExpiry();
        if (!forever.isEmpty()) {
            violation("expiry", "after every owner unlocked or gave up, keys without expiry (not fencing counters): "
                    + forever);
        }
        note("finish: clean");
    }

    private boolean redisKeyLeft() {
        return allNames().stream().anyMatch(n -> redis.exists(n) > 0);
    }

    private String leftBehind() {
        StringBuilder left = new StringBuilder();
        for (String name : allNames()) {
            if (redis.exists(name) > 0) {
                left.append(name).append(" on Redis ").append(redis.hgetall(name)).append("; ");
            }
        }
        for (int c = 0; c < clients.size(); c++) {
            PadlockClient client = clients.get(c);
            if (client.localQueues() + client.renewedLocks() + client.channelsInUse() > 0) {
                left.append("c").append(c).append(": localQueues=").append(client.localQueues())
                        .append(" renewedLocks=").append(client.renewedLocks())
                        .append(" channelsInUse=").append(client.channelsInUse())
                        .append(" ").append(client.describeLocalQueues()).append("; ");
            }
        }
        return left.toString();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (PadlockClient client : clients) {
            failure = Cleanup.close(client, failure);
        }
        for (Owner owner : owners) {
            if (owner.threaded()) {
                owner.thread.shutdownNow();
            }
        }
        failure = Cleanup.close(() -> {
            List<String> mine = view.keysContaining("model:" + sequence + ":");
            if (!mine.isEmpty()) {
                redis.del(mine.toArray(new String[0]));
            }
        }, failure);
        Cleanup.rethrow(failure);
    }

    // ------------------------------------------------------------------ acquisitions

    private Pending start(Owner owner, String name, Kind kind, Mode mode, long leaseMillis, long waitMillis,
            boolean reentrant) {
        Pending pending = new Pending(owner, name, kind, mode, leaseMillis, waitMillis, System.nanoTime(), reentrant);
        note((reentrant ? "" : "start ") + pending);
        if (owner.redisson()) {
            CompletableFuture<Boolean> engine = redisson.tryLock(name, kind, Math.max(0, waitMillis), leaseMillis,
                    owner.id);
            pending.cancelHandle = engine;
            pending.result = engine;
        } else if (owner.threaded()) {
            RLock lock = lock(owner.client, name, kind);
            CompletableFuture<Boolean> result = new CompletableFuture<>();
            pending.cancelHandle = owner.thread.submit(() -> {
                Thread.interrupted(); // a late interrupt of a task that had already ended
                if (!pending.started.compareAndSet(false, true)) {
                    return; // given up before it started
                }
                try {
                    result.complete(blockingAcquire(lock, mode, leaseMillis, waitMillis));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
            pending.result = result;
        } else {
            RLock lock = lock(owner.client, name, kind);
            long wait = waitMillis < 0 ? -1 : waitMillis;
            if (mode == Mode.LOCK) {
                CompletableFuture<Void> engine = lock.lockAsync(leaseMillis, TimeUnit.MILLISECONDS, owner.id);
                pending.cancelHandle = engine;
                pending.result = engine.thenApply(ignored -> true);
            } else {
                CompletableFuture<Boolean> engine = lock.tryLockAsync(mode == Mode.TRY_ONCE ? 0 : wait, leaseMillis,
                        TimeUnit.MILLISECONDS, owner.id);
                pending.cancelHandle = engine;
                pending.result = engine.thenApply(acquired -> acquired);
            }
        }
        owner.pendings.add(pending);
        pending.result.whenComplete((acquired, failure) -> {
            pending.doneAt = System.nanoTime();
            if (Boolean.TRUE.equals(acquired)) {
                grants.get(name).incrementAndGet();
            }
            completed.add(pending);
            pending.queued = true;
        });
        return pending;
    }

    private static boolean blockingAcquire(RLock lock, Mode mode, long leaseMillis, long waitMillis)
            throws InterruptedException {
        switch (mode) {
            case LOCK:
                lock.lockInterruptibly(leaseMillis, TimeUnit.MILLISECONDS);
                return true;
            case TRY_ONCE:
                return leaseMillis <= 0 ? lock.tryLock() : lock.tryLock(0, leaseMillis, TimeUnit.MILLISECONDS);
            default:
                return lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** A one-shot tryLock by an owner that does not hold the name: true whenever Redis shows it free. */
    private void tryOnce(Owner owner, String name, Kind kind, long leaseMillis) {
        long grantsBefore = grants.get(name).get();
        boolean freeBefore = redis.exists(name) == 0;
        long calledAt = System.nanoTime();
        Pending pending = start(owner, name, kind, Mode.TRY_ONCE, leaseMillis, 0, false);
        if (!awaitQuietly(pending.result, CALL_MILLIS)) {
            fail(pending + " did not answer within " + CALL_MILLIS + " ms");
        }
        long took = System.nanoTime() - calledAt;
        awaitCallback(pending);
        drain();
        if (!Boolean.TRUE.equals(pending.result.getNow(null))) {
            boolean freeAfter = redis.exists(name) == 0;
            NameLog log = logs.get(name);
            long now = System.nanoTime();
            boolean localExcuse = now - log.externalLossAt.getOrDefault(owner.client, Long.MIN_VALUE / 2)
                    < nanos(LOST_REPORT_MILLIS + 500)
                    || now - log.leaseEndAt.getOrDefault(owner.client, Long.MIN_VALUE / 2) < nanos(300)
                    || holds.values().stream().anyMatch(h -> h.name.equals(name) && h.owner != owner
                            && h.owner.client == owner.client
                            && (h.state(now) == State.MAYBE || now < h.possiblyUntil + nanos(300)));
            note("  -> false (Redis free before: " + freeBefore + ", after: " + freeAfter + ", took "
                    + millis(took) + " ms)");
            if (freeBefore && freeAfter && grants.get(name).get() == grantsBefore && took < nanos(250)
                    && !localExcuse && !pendingOn(name)) {
                violation("tryonce", pending + " answered false while Redis showed " + name + " free before and after, and "
                        + "nobody else acquired it (a phantom local holder?)");
            }
        }
    }

    /** A re-entrant acquisition by a definite holder: answers true at once, and is one more hold. */
    private void reenter(Owner owner, Hold hold, Kind kind, Mode mode, long leaseMillis, long waitMillis) {
        long lease = hold.watchdog && !owner.redisson() ? -1
                : Math.max(300, leaseMillis <= 0 ? REDISSON_LEASE_MILLIS : leaseMillis);
        long now = System.nanoTime();
        if (!hold.watchdog && hold.definiteUntil - now < nanos(300)) {
            note(owner + " re-entry skipped: its fixed lease ends soon");
            return;
        }
        if (hold.side != Side.EXCLUSIVE) {
            kind = hold.side == Side.READ ? Kind.READ : Kind.WRITE;
        } else if (owner.redisson()) {
            kind = Kind.LOCK;
        } else {
            kind = sameFamily(hold.kinds.contains(Kind.FAIR), kind);
        }
        Pending pending = start(owner, hold.name, kind, mode, lease, waitOf(mode, waitMillis), true);
        boolean acquired = awaitImmediate(pending, hold, "re-entry");
        if (pending.doneAt >= hold.definiteUntil || hold.uncertain) {
            note("  -> " + acquired + " (the hold was in doubt by then: now maybe holding)");
            hold.doubt(pending.doneAt, hold.watchdog ? NEVER : pending.doneAt + nanos(lease) + LEASE_SLACK_NANOS);
            return;
        }
        if (!acquired) {
            return;
        }
        hold.count++;
        hold.kinds.add(pending.kind);
        count("re-entry to depth " + hold.count + (hold.side == Side.EXCLUSIVE ? "" : " " + hold.side));
        if (!hold.watchdog) {
            long end = pending.calledAt + nanos(lease);
            switch (hold.side) {
                case EXCLUSIVE -> {
                    if (owner.redisson()) {
                        // Redisson's re-entry sets the lease anew, shorter or longer
                        hold.leaseEnd = end;
                        hold.definiteUntil = end - LEASE_MARGIN_NANOS;
                        hold.possiblyUntil = pending.doneAt + nanos(lease) + LEASE_SLACK_NANOS;
                    } else {
                        // Padlock's raises the TTL to the new lease, never lowers it (issue 37)
                        hold.leaseEnd = Math.max(hold.leaseEnd, end);
                        hold.definiteUntil = Math.max(hold.definiteUntil, end - LEASE_MARGIN_NANOS);
                        hold.possiblyUntil = Math.max(hold.possiblyUntil,
                                pending.doneAt + nanos(lease) + LEASE_SLACK_NANOS);
                    }
                }
                case WRITE -> {
                    // the remaining lease plus the new one: never shorter
                    hold.leaseEnd = Math.max(hold.leaseEnd, end);
                    hold.definiteUntil = Math.max(hold.definiteUntil, end - LEASE_MARGIN_NANOS);
                    hold.possiblyUntil = hold.possiblyUntil + nanos(lease);
                }
                case READ -> {
                    // a lease key of its own; the hold lasts as long as its longest lease
                    hold.readEnds.add(end);
                    hold.definiteUntil = Math.max(hold.definiteUntil, end - LEASE_MARGIN_NANOS);
                    hold.possiblyUntil = Math.max(hold.possiblyUntil, pending.doneAt + nanos(lease) + LEASE_SLACK_NANOS);
                }
                default -> throw new IllegalStateException("side " + hold.side);
            }
            if (hold.open != null) {
                // held without a break: the certain interval now ends with the new lease
                hold.open.end = hold.definiteUntil;
                checkOverlaps(hold.open);
            }
        }
        note("  -> true, count " + hold.count);
    }

    /** A writer takes the read lock too (a downgrade): answers true at once, a read hold of its own. */
    private void downgrade(Owner owner, Hold write, long leaseMillis) {
        long lease = write.watchdog && !owner.redisson() ? -1
                : Math.max(300, leaseMillis <= 0 ? REDISSON_LEASE_MILLIS : leaseMillis);
        if (!write.watchdog && write.definiteUntil - System.nanoTime() < nanos(300)) {
            note(owner + " downgrade skipped: its fixed write lease ends soon");
            return;
        }
        count("downgrade (read by the writer)");
        Pending pending = start(owner, write.name, Kind.READ, Mode.TRY_ONCE, lease, 0, true);
        boolean acquired = awaitImmediate(pending, write, "downgrade");
        if (pending.doneAt >= write.definiteUntil || write.uncertain) {
            note("  -> " + acquired + " (the write hold was in doubt by then)");
            if (acquired) {
                Hold read = hold(owner, write.name, Side.READ);
                read.count = 1;
                read.watchdog = pending.watchdog();
                read.grantedAt = pending.doneAt;
                read.doubt(pending.doneAt, read.watchdog ? NEVER : pending.doneAt + nanos(lease) + LEASE_SLACK_NANOS);
            }
            return;
        }
        if (acquired) {
            grant(pending, pending.doneAt);
        }
    }

    /**
     * Waits for an acquisition that must answer true at once (a re-entry, a downgrade) and takes it
     * out of the owner's acquisitions in flight; a false is a violation unless the hold was lost.
     */
    private boolean awaitImmediate(Pending pending, Hold hold, String what) {
        if (!awaitQuietly(pending.result, CALL_MILLIS)) {
            cancel(pending);
            violation("reentry", pending + " (a " + what + " by a holder, count " + hold.count + ") did not answer within "
                    + CALL_MILLIS + " ms");
            awaitQuietly(pending.result, CALL_MILLIS);
            if (!pending.result.isDone()) {
                fail(pending + " did not end after it gave up");
            }
        }
        awaitCallback(pending);
        drainLost();
        pending.owner.pendings.remove(pending);
        completed.remove(pending);
        Throwable failure = failureOf(pending.result);
        if (failure != null) {
            fail(pending + " (a " + what + " by a holder) failed with " + failure, failure);
        }
        boolean acquired = pending.result.getNow(false);
        if (!acquired && !hold.uncertain && pending.doneAt < hold.definiteUntil && !excused(hold)) {
            violation("reentry", pending + " (a " + what + " by a holder, count " + hold.count + ") answered false");
            note("  -> false: the model goes on with the hold as it was");
        }
        return acquired;
    }

    private void cancel(Pending pending) {
        note(pending.owner + " gives up " + pending);
        pending.givenUp = true;
        if (!pending.owner.threaded()) {
            pending.cancelHandle.cancel(true);
        } else if (pending.started.compareAndSet(false, true)) {
            pending.result.completeExceptionally(new CancellationException("given up before it started"));
        } else {
            pending.owner.worker.interrupt(); // the blocked call throws InterruptedException
        }
    }

    /** Processes the acquisitions that completed, in the order they did. */
    private void drain() {
        List<Pending> batch = new ArrayList<>();
        for (Pending p; (p = completed.poll()) != null; ) {
            batch.add(p);
        }
        batch.sort(Comparator.comparingLong(p -> p.doneAt));
        for (Pending pending : batch) {
            settle(pending);
        }
        drainLost();
    }

    private void settle(Pending pending) {
        Owner owner = pending.owner;
        owner.pendings.remove(pending);
        Throwable failure = failureOf(pending.result);
        long at = pending.doneAt;
        if (failure != null) {
            if (failure instanceof CancellationException
                    || failure instanceof InterruptedException) {
                note(pending + " gave up (" + failure.getClass().getSimpleName() + ") at " + ms(at));
                // the contract releases an acquisition that lands after the cancel: in doubt meanwhile
                Hold hold = hold(owner, pending.name, pending.side);
                hold.doubt(at, Math.max(hold.possiblyUntil, at + nanos(CALL_MILLIS)));
                return;
            }
            if (failure instanceof IllegalMonitorStateException && refusedUpgrade(pending)) {
                note(pending + " refused at " + ms(at) + ": its owner held the read lock (no upgrade)");
                return;
            }
            if (redissonNoScript(pending, failure)) {
                note(pending + " failed at " + ms(at) + " on NOSCRIPT after the SCRIPT FLUSH (Redisson's own race)");
                return;
            }
            if (redissonSubscriptionTimeout(pending, failure)) {
                note(pending + " failed at " + ms(at) + ": Redisson's subscription took longer than its wait (a busy"
                        + " machine); refused before it subscribed, it holds nothing");
                return;
            }
            fail(pending + " failed with " + failure, failure);
        }
        if (!pending.result.getNow(false)) {
            note(pending + " -> false at " + ms(at) + (pending.kind == Kind.WRITE && refusedUpgrade(pending)
                    ? " (its owner held the read lock: no upgrade)" : ""));
            return;
        }
        count("acquired " + (owner.redisson() ? "Redisson " : "") + pending.kind + (pending.second ? " (second wait)" : ""));
        grant(pending, at);
    }

    /** Whether a write acquisition may have been refused as an upgrade: its owner held the read lock meanwhile. */
    private boolean refusedUpgrade(Pending pending) {
        if (pending.kind != Kind.WRITE) {
            return false;
        }
        Hold read = holds.get(key(pending.owner, pending.name, Side.READ));
        return read != null || logs.get(pending.name).readHeldUntil.getOrDefault(pending.owner.index, Long.MIN_VALUE)
                >= pending.calledAt;
    }

    /** An acquisition completed with success at {@code at}: the owner believes it holds, once more. */
    private void grant(Pending pending, long at) {
        Owner owner = pending.owner;
        String name = pending.name;
        NameLog log = logs.get(name);
        Force endedBy = null;
        boolean ambiguous = false;
        // Under the contract, the grant ran on Redis after any other owner's certain holding (that
        // excludes it) that ended while this owner waited, and after a force that ran while another
        // owner certainly held.
        long earliest = pending.calledAt;
        for (Segment segment : log.segments) {
            if (segment.owner != owner && segment.side.excludes(pending.side) && segment.end > pending.calledAt
                    && segment.end <= at) {
                earliest = Math.max(earliest, segment.end);
            }
        }
        for (Force force : log.forces) {
            if (force.calledAt > at && endedBy == null) {
                endedBy = force;
            } else if (force.calledAt < at && pending.calledAt < force.doneAt) {
                boolean heldByAnother = force.heldBy.stream().anyMatch(o -> o != owner);
                if (heldByAnother) {
                    earliest = Math.max(earliest, force.calledAt);
                } else {
                    ambiguous = true;
                }
            }
        }
        Hold existing = holds.get(key(owner, name, pending.side));
        if (existing != null && existing.state(at) != State.NONE && endedBy == null) {
            merge(existing, pending, at, earliest);
            return;
        }
        if (existing != null) {
            removeHold(existing);
        }
        boolean watchdog = pending.watchdog();
        long lease = nanos(pending.leaseMillis);
        if (ambiguous) {
            if (endedBy == null) {
                Hold hold = new Hold(owner, name, pending.side);
                hold.kinds.add(pending.kind);
                hold.count = 1;
                hold.watchdog = watchdog;
                hold.grantedAt = at;
                hold.uncertain = true;
                hold.possiblyUntil = watchdog ? NEVER : at + lease + LEASE_SLACK_NANOS;
                holds.put(key(owner, name, pending.side), hold);
            }
            note(pending + " -> true at " + ms(at) + " (ran before or after a force: maybe holding"
                    + (endedBy == null ? ")" : ", ended by a later force)"));
            return;
        }
        Hold hold = new Hold(owner, name, pending.side);
        hold.kinds.add(pending.kind);
        hold.count = 1;
        hold.watchdog = watchdog;
        hold.grantedAt = at;
        hold.definiteUntil = watchdog ? NEVER : earliest + lease - LEASE_MARGIN_NANOS;
        hold.possiblyUntil = watchdog ? NEVER : at + lease + LEASE_SLACK_NANOS;
        if (!watchdog) {
            // the contract: a TTL of at least the lease when Redis answered, which it did after `earliest`
            if (pending.side == Side.READ) {
                hold.readEnds.add(earliest + lease);
            } else {
                hold.leaseEnd = earliest + lease;
            }
        }
        if (endedBy != null) {
            note(pending + " -> true at " + ms(at) + ", ended by the force at " + ms(endedBy.calledAt));
            if (Math.min(endedBy.calledAt, hold.definiteUntil) > at) {
                addSegment(new Segment(owner, name, pending.side, at, Math.min(endedBy.calledAt, hold.definiteUntil),
                        pending.toString()));
            }
            return;
        }
        holds.put(key(owner, name, pending.side), hold);
        if (hold.definiteUntil <= at) {
            note(pending + " -> true at " + ms(at) + " (its fixed lease may be over already: maybe holding)");
            return;
        }
        note(pending + " -> true at " + ms(at) + (hold.watchdog ? "" : ", definite until " + ms(hold.definiteUntil)));
        Segment segment = new Segment(owner, name, pending.side, at, hold.definiteUntil, pending.toString());
        hold.open = segment;
        addSegment(segment);
    }

    /**
     * A second acquisition of an owner that already holds (its two waits both succeeded, or one
     * landed beside a hold): one more hold. Which of the two landed last on Redis is not known, so
     * the lease the model counts on is the shorter of the two (the longer for a reader's hold, which
     * lasts as long as its longest lease).
     */
    private void merge(Hold hold, Pending pending, long at, long earliest) {
        hold.count++;
        hold.kinds.add(pending.kind);
        hold.unordered = true;
        count("one more hold from a concurrent acquisition (" + pending.side + ")");
        long lease = nanos(pending.leaseMillis);
        if (pending.watchdog()) {
            hold.watchdog = true;
            if (hold.state(at) == State.DEFINITE) {
                hold.definiteUntil = NEVER;
            }
            hold.possiblyUntil = NEVER;
            hold.leaseEnd = NEVER;
        } else if (!hold.watchdog) {
            long end = earliest + lease;
            if (pending.side == Side.READ) {
                hold.readEnds.add(end);
                hold.definiteUntil = Math.max(hold.definiteUntil, end - LEASE_MARGIN_NANOS);
            } else {
                hold.leaseEnd = Math.min(hold.leaseEnd, end);
                hold.definiteUntil = Math.min(hold.definiteUntil, end - LEASE_MARGIN_NANOS);
            }
            hold.possiblyUntil = Math.max(hold.possiblyUntil, at + lease + LEASE_SLACK_NANOS);
        }
        if (hold.open != null && !hold.uncertain) {
            hold.open.end = hold.definiteUntil;
            checkOverlaps(hold.open);
        }
        note(pending + " -> true at " + ms(at) + ": one more hold, count " + hold.count
                + (hold.uncertain ? " (maybe holding)" : ""));
    }

    // ------------------------------------------------------------------ releases

    private void unlockHolder(Owner owner, String name, Side side, Kind kind) {
        Hold hold = holds.get(key(owner, name, side));
        Kind asked = side == Side.READ ? Kind.READ : side == Side.WRITE ? Kind.WRITE
                : owner.redisson() ? Kind.LOCK : kind.readWrite() ? (kind == Kind.READ ? Kind.LOCK : Kind.FAIR) : kind;
        Kind through = side == Side.EXCLUSIVE && !owner.redisson() ? sameFamily(hold.kinds.contains(Kind.FAIR), asked)
                : asked;
        long calledAt = System.nanoTime();
        State state = hold.state(calledAt);
        boolean last = state == State.DEFINITE && hold.count == 1;
        if (through == Kind.FAIR && !owner.redisson() && (hold.kinds.contains(Kind.LOCK)
                || hold.kinds.contains(Kind.SPIN) || hold.kinds.contains(Kind.FENCED))) {
            fairReleasedLocal.add(name);
        }
        if (last) {
            hold.end(calledAt);
            lastReleaseKind.put(name, through);
            if (through != Kind.FAIR || owner.redisson()) {
                publishedReleaseAt.put(name, calledAt); // the fair lock's release publishes only a grant
            }
        }
        String what = "unlock by " + owner + " of " + name + " through " + through + " (" + state
                + (state == State.DEFINITE ? ", count " + hold.count : "") + ")";
        Throwable failure = call(() -> unlockFuture(owner, name, through), what);
        long doneAt = System.nanoTime();
        if (state == State.DEFINITE && failure instanceof IllegalMonitorStateException
                && (doneAt >= hold.definiteUntil || excused(hold))) {
            note("  -> IllegalMonitorStateException (its lease may have ended meanwhile)");
            removeHold(hold);
            return;
        }
        if (state == State.DEFINITE) {
            if (failure instanceof IllegalMonitorStateException) {
                violation(hold.countCheck(), what + " failed with " + failure + ": the owner was told it holds "
                        + hold.count + " time(s) and its lease is not over");
                removeHold(hold);
                return;
            }
            if (failure != null) {
                fail(what + " failed with " + failure, failure);
            }
            hold.count--;
            if (side == Side.READ) {
                hold.dropOneRead();
            } else if (owner.redisson() && hold.count > 0 && !hold.watchdog) {
                // Redisson's inner unlock re-arms the lock to its internalLockLeaseTime (the watchdog
                // timeout), whatever lease the hold had: its own semantics, not a broken promise
                long rearmed = calledAt + nanos(WATCHDOG_MILLIS);
                hold.leaseEnd = Math.min(hold.leaseEnd, rearmed);
                hold.definiteUntil = Math.min(hold.definiteUntil, rearmed - LEASE_MARGIN_NANOS);
                // and longer too: a re-entry's shorter lease no longer ends it, the re-armed one does
                hold.possiblyUntil = Math.max(hold.possiblyUntil, doneAt + nanos(WATCHDOG_MILLIS) + LEASE_SLACK_NANOS);
                if (hold.open != null) {
                    hold.open.end = Math.min(hold.open.end, hold.definiteUntil);
                }
                // that re-arm sets the hash's TTL, which its own read holds of the name live by too
                Hold read = side == Side.WRITE ? holds.get(key(owner, name, Side.READ)) : null;
                if (read != null && !read.watchdog) {
                    read.readEnds.replaceAll(end -> Math.min(end, rearmed));
                    read.definiteUntil = Math.min(read.definiteUntil, rearmed - LEASE_MARGIN_NANOS);
                    if (read.open != null) {
                        read.open.end = Math.min(read.open.end, read.definiteUntil);
                    }
                }
            }
            note("  -> ok, count " + hold.count);
            if (hold.count == 0) {
                removeHold(hold);
            }
            return;
        }
        if (failure instanceof IllegalMonitorStateException) {
            note("  -> IllegalMonitorStateException: not holding");
            removeHold(hold);
        } else if (failure != null) {
            fail(what + " failed with " + failure, failure);
        } else {
            note("  -> ok: it was holding");
            if (hold.count > 0) {
                hold.count--;
                if (side == Side.READ) {
                    hold.dropOneRead();
                }
            }
        }
    }

    private CompletableFuture<Void> unlockFuture(Owner owner, String name, Kind kind) {
        if (owner.redisson()) {
            return redisson.unlock(name, kind, owner.id);
        }
        RLock lock = lock(owner.client, name, kind);
        if (!owner.threaded()) {
            return lock.unlockAsync(owner.id);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        owner.thread.submit(() -> {
            Thread.interrupted();
            try {
                lock.unlock();
                result.complete(null);
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * A forceUnlock or DEL of {@code name}. On an exclusive name, or for a DEL ({@code kind} null),
     * every belief ends at its call; a read-write lock's force frees only the side it is called on,
     * and says whether it did.
     */
    private void force(String name, int byClient, String what, java.util.function.Supplier<CompletableFuture<Boolean>> call,
            Kind kind) {
        drain();
        long calledAt = System.nanoTime();
        Force force = new Force(name, calledAt);
        boolean sided = kind != null && kind.readWrite();
        List<Hold> certain = holds.values().stream()
                .filter(h -> h.name.equals(name) && h.state(calledAt) == State.DEFINITE).toList();
        note(what + " of " + name);
        Boolean released;
        try {
            released = call.get().get(CALL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw fail(what + " of " + name + " failed: " + e, e);
        }
        force.doneAt = System.nanoTime();
        if (byClient >= 0 && Boolean.TRUE.equals(released)) {
            publishedReleaseAt.put(name, calledAt);
        }
        if (sided && !Boolean.TRUE.equals(released)) {
            // not in that mode when it ran: nothing changed (holders in doubt stay in doubt)
            note("  -> false: the lock was not in " + kind + " mode");
            return;
        }
        for (Hold hold : certain) {
            if (hold.definiteUntil > force.doneAt && !excusedNow(hold)) {
                force.heldBy.add(hold.owner); // held until the force ran
            }
        }
        logs.get(name).forces.add(force);
        note("  -> " + released + " (certain holders until it ran: " + force.heldBy + ")");
        for (Hold hold : new ArrayList<>(holds.values())) {
            if (hold.name.equals(name)) {
                hold.end(calledAt);
                removeHold(hold);
                forgotten.add(hold);
                if (hold.owner.client != byClient) {
                    logs.get(name).externalLossAt.put(hold.owner.client, force.doneAt);
                }
            }
        }
    }

    private void removeHold(Hold hold) {
        hold.end(System.nanoTime());
        if (holds.remove(key(hold.owner, hold.name, hold.side), hold) && hold.side == Side.READ) {
            logs.get(hold.name).readHeldUntil.put(hold.owner.index, System.nanoTime());
        }
    }

    // ------------------------------------------------------------------ checks

    private void begin() {
        steps++;
        stepStartedAt = System.nanoTime();
        drain();
    }

    private void end() {
        drain();
        check();
    }

    /**
     * The checks after every step: no two holders on Redis, hold counts and leases on Redis as the
     * owners were told, no stuck waiter.
     */
    void check() {
        long now = System.nanoTime();
        for (Hold hold : new ArrayList<>(holds.values())) {
            State state = hold.state(now);
            if (state == State.NONE) {
                expire(hold);
            }
        }
        for (String name : names) {
            Map<String, String> fields = redis.hgetall(name);
            if (fields.size() > 1) {
                fail("two holders on Redis: " + name + " = " + fields);
            }
        }
        for (String name : rwNames) {
            checkReadWriteShape(name);
        }
        for (Hold hold : new ArrayList<>(holds.values())) {
            if (holds.get(key(hold.owner, hold.name, hold.side)) == hold) {
                checkHold(hold);
            }
        }
        for (String name : allNames()) {
            checkNoStuckWaiter(name);
        }
    }

    /** A read-write lock's hash: a mode; a writer beside nobody but its own read holds; readers among readers. */
    private void checkReadWriteShape(String name) {
        Map<String, String> fields = view.hash(name);
        if (fields.isEmpty()) {
            return;
        }
        String mode = fields.get("mode");
        List<String> writers = fields.keySet().stream().filter(f -> f.endsWith(":write")).toList();
        List<String> readers = fields.keySet().stream().filter(f -> !f.equals("mode") && !f.endsWith(":write")).toList();
        if ("write".equals(mode)) {
            if (writers.size() != 1) {
                fail("write mode with " + writers.size() + " writers on Redis: " + name + " = " + fields);
            }
            String own = writers.get(0).substring(0, writers.get(0).length() - ":write".length());
            for (String reader : readers) {
                if (!reader.equals(own)) {
                    fail("a writer beside another holder on Redis: " + name + " = " + fields);
                }
            }
        } else if ("read".equals(mode)) {
            if (!writers.isEmpty()) {
                fail("a writer's field in read mode on Redis: " + name + " = " + fields);
            }
        } else {
            fail("a read-write lock without a valid mode on Redis: " + name + " = " + fields);
        }
    }

    /**
     * An owner that certainly holds has its field with the count it was told (plus what its
     * acquisitions in flight may have added), a reader at least one live lease key, and the TTL its
     * fixed leases promised: at least each lease, counted from before the acquisition that set it.
     */
    private void checkHold(Hold hold) {
        boolean flagged = hold.flagged;
        checkHoldOnRedis(hold);
        if (hold.flagged && !flagged) {
            // a violation noted, not failing (padlock.model.skip): from now on the model only "may" hold it
            hold.doubt(System.nanoTime(), hold.possiblyUntil);
        }
    }

    private void checkHoldOnRedis(Hold hold) {
        long now = System.nanoTime();
        if (hold.state(now) != State.DEFINITE || hold.definiteUntil - now < nanos(50)) {
            return;
        }
        String field = field(hold.owner, hold.side);
        String count = view.field(hold.name, field);
        int inFlight = hold.owner.pendingOn(hold.name, hold.side);
        Integer onRedis = count == null ? null : Integer.valueOf(count);
        if (hold.flagged) {
            return; // a violation on it was noted already (padlock.model.skip)
        }
        if ((onRedis == null || onRedis < hold.count || onRedis > hold.count + inFlight)
                && hold.state(System.nanoTime()) == State.DEFINITE && !excused(hold)) {
            hold.flagged = true;
            violation(hold.countCheck(), hold.owner + " believes it holds " + hold.name + (hold.side == Side.EXCLUSIVE ? ""
                    : " (" + hold.side + ")") + " " + hold.count + " time(s)"
                    + (inFlight > 0 ? " (" + inFlight + " more in flight)" : "") + ", Redis has " + field + " = "
                    + count + " (hash " + view.hash(hold.name) + ", PTTL " + view.pttl(hold.name) + ")");
            return;
        }
        if (onRedis == null) {
            return;
        }
        List<Pending> mine = hold.owner.pendings.stream()
                .filter(p -> p.name.equals(hold.name) && p.side == hold.side).toList();
        boolean watchdog = hold.watchdog || mine.stream().anyMatch(Pending::watchdog);
        if (hold.side == Side.READ) {
            checkReadLeases(hold, field, onRedis, watchdog);
            return;
        }
        long ttl = view.pttl(hold.name);
        long after = System.nanoTime();
        if (ttl == -1) {
            hold.flagged = true;
            violation("ttl", hold.owner + " holds " + hold.name + " and Redis keeps it without expiry");
            return;
        }
        if (watchdog || hold.uncertain) {
            return;
        }
        long promised = hold.leaseEnd;
        for (Pending p : mine) {
            promised = Math.min(promised, p.calledAt + nanos(p.leaseMillis));
        }
        if (promised - after > LEASE_MARGIN_NANOS && ttl < millis(promised - after) - TTL_TOLERANCE_MILLIS
                && hold.state(System.nanoTime()) == State.DEFINITE) {
            hold.flagged = true;
            violation("ttl", hold.owner + " was told it holds " + hold.name + (hold.side == Side.EXCLUSIVE ? ""
                    : " (" + hold.side + ")") + " with a fixed lease that ends in " + millis(promised - after)
                    + " ms at the earliest, Redis has PTTL " + ttl + " ms (hash " + view.hash(hold.name) + ")");
        }
    }

    /**
     * A reader's leases: its holds' keys {@code {name}:field:rwlock_timeout:1..n}, at least one
     * alive; sorted by TTL they cover the model's lease ends sorted the same way (each hold's key
     * lives at least as long as its lease), and the hash lives as long as the longest.
     */
    private void checkReadLeases(Hold hold, String field, int onRedis, boolean watchdog) {
        List<Long> ttls = new ArrayList<>();
        for (int n = 1; n <= onRedis; n++) {
            ttls.add(view.pttl(RedisView.readLease(hold.name, field, n)));
        }
        long hashTtl = view.pttl(hold.name);
        long after = System.nanoTime();
        if (ttls.stream().allMatch(t -> t == -2) && hold.state(System.nanoTime()) == State.DEFINITE && !excused(hold)) {
            hold.flagged = true;
            violation("ttl", hold.owner + " believes it holds the read lock of " + hold.name + " " + hold.count
                    + " time(s), Redis has its field (" + onRedis + ") but none of its lease keys");
            return;
        }
        if (ttls.contains(-1L) || hashTtl == -1) {
            hold.flagged = true;
            violation("ttl", hold.owner + " reads " + hold.name + " and Redis keeps a key of it without expiry: "
                    + "lease keys " + ttls + ", hash " + hashTtl);
        }
        if (watchdog || hold.uncertain) {
            return;
        }
        List<Long> promised = hold.readEnds.stream().filter(e -> e - after > LEASE_MARGIN_NANOS)
                .map(e -> millis(e - after)).sorted(Comparator.reverseOrder()).toList();
        List<Long> actual = ttls.stream().sorted(Comparator.reverseOrder()).toList();
        for (int k = 0; k < promised.size(); k++) {
            long have = k < actual.size() ? actual.get(k) : -2;
            if (have < promised.get(k) - TTL_TOLERANCE_MILLIS && hold.state(System.nanoTime()) == State.DEFINITE) {
                hold.flagged = true;
                violation("ttl", hold.owner + " was told it reads " + hold.name + " with fixed leases that end in "
                        + promised + " ms at the earliest, Redis has lease keys with PTTL " + ttls
                        + " (hash " + view.hash(hold.name) + ")");
                return;
            }
        }
        if (!promised.isEmpty() && hashTtl < promised.get(0) - TTL_TOLERANCE_MILLIS
                && hold.state(System.nanoTime()) == State.DEFINITE) {
            hold.flagged = true;
            violation("ttl", hold.owner + " was told it reads " + hold.name + " with a fixed lease that ends in "
                    + promised.get(0) + " ms at the earliest, the hash has PTTL " + hashTtl + " ms (hash "
                    + view.hash(hold.name) + ")");
        }
    }

    /** A name Redis shows free, with a waiter (of either library) that may wait longer: some waiter gets it, soon. */
    private void checkNoStuckWaiter(String name) {
        long now = System.nanoTime();
        boolean published = publishedReleaseAt.getOrDefault(name, Long.MIN_VALUE) >= stepStartedAt;
        long bound = published ? PROMPT_LIVENESS_MILLIS : LIVENESS_MILLIS;
        // read before the waiters and Redis: a grant after it must count; one before it is drained
        long before = grants.get(name).get();
        drain();
        List<Pending> waiters = owners.stream().flatMap(o -> o.pendings.stream())
                .filter(p -> p.name.equals(name) && !p.result.isDone() && p.waitsLongerThan(now, bound + 500))
                .toList();
        if (waiters.isEmpty() || redis.exists(name) > 0) {
            return;
        }
        if (now < silentlyFreedUntil.getOrDefault(name, Long.MIN_VALUE)) {
            return; // freed by a DEL, unannounced: waiters may sleep out the lease they saw (checked after it)
        }
        if (awaitTrue(() -> grants.get(name).get() > before, bound)) {
            drain();
            return;
        }
        drain();
        if (redis.exists(name) > 0 || grants.get(name).get() > before) {
            return; // taken meanwhile (a grant still in flight to its owner, or one whose lease already ran out)
        }
        violation(lastReleaseKind.get(name) == Kind.FAIR || fairReleasedLocal.contains(name) ? "liveness-fair" : "liveness",
                "stuck waiter: Redis shows " + name + " free" + (published ? " after a release" : "")
                + ", and for " + bound + " ms none of " + waiters + " got it (still waiting: "
                + waiters.stream().filter(p -> !p.result.isDone()).toList() + "; the latest final unlock of it went through "
                + lastReleaseKind.get(name) + ")");
    }

    private void expire(Hold hold) {
        note(hold.owner + "'s fixed lease on " + hold.name + (hold.side == Side.EXCLUSIVE ? "" : " (" + hold.side + ")")
                + " is over (count was " + hold.count + ")");
        NameLog log = logs.get(hold.name);
        log.leaseEndAt.merge(hold.owner.client, hold.possiblyUntil, Math::max);
        removeHold(hold);
        forgotten.add(hold);
    }

    private void addSegment(Segment segment) {
        checkOverlaps(segment);
        logs.get(segment.name).segments.add(segment);
    }

    private void checkOverlaps(Segment segment) {
        for (Segment other : logs.get(segment.name).segments) {
            if (other != segment && other.conflicts(segment)) {
                twoHolders(other, segment);
            }
        }
    }

    /**
     * Waits for the whole completion callback of a future that is done (it may run just after): until
     * the pending is in the completed queue, so that the caller's removal from it sticks. Waiting for
     * {@code doneAt} alone let a loaded machine queue a re-entry after the step had counted it, and the
     * next drain counted it again as a concurrent acquisition.
     */
    private static void awaitCallback(Pending pending) {
        if (!awaitTrue(() -> pending.queued, 30_000)) {
            throw new IllegalStateException("no completion callback for " + pending);
        }
    }

    private void twoHolders(Segment first, Segment second) {
        // a watchdog lease lost through a stall is excused when the watchdog reports it: wait for such a
        // report (bounded), not a fixed time
        awaitTrue(() -> {
            drainLost();
            return List.of(first, second).stream()
                    .anyMatch(segment -> lostReported(segment.owner, segment.name, segment.start));
        }, LOST_REPORT_MILLIS);
        for (Segment segment : List.of(first, second)) {
            if (lostReported(segment.owner, segment.name, segment.start)) {
                note("two holders excused: " + segment.owner + "'s watchdog lease was reported lost");
                segment.end = segment.start;
                return;
            }
        }
        fail("two holders of " + first.name + ": " + first.owner + " certainly held it (" + first.side + ") from "
                + ms(first.start) + " to " + (first.end == NEVER ? "now" : ms(first.end)) + " (" + first.how + ") and "
                + second.owner + " (" + second.side + ") from " + ms(second.start) + " to "
                + (second.end == NEVER ? "now" : ms(second.end)) + " (" + second.how + "); Redis now: "
                + redis.hgetall(first.name));
    }

    /** Whether a failed check about a watchdog hold is explained by a lease-lost report. */
    private boolean excused(Hold hold) {
        if (!hold.watchdog || hold.owner.redisson()) {
            return false;
        }
        long until = System.nanoTime() + nanos(LOST_REPORT_MILLIS);
        while (true) {
            drainLost();
            if (lostReported(hold.owner, hold.name, hold.grantedAt)) {
                note(hold.owner + "'s watchdog lease on " + hold.name + " was reported lost: now maybe holding");
                hold.doubt(hold.grantedAt, NEVER);
                return true;
            }
            if (System.nanoTime() > until) {
                return false;
            }
            sleep(50);
        }
    }

    /** Whether a lease-lost report already arrived for a watchdog hold (no waiting). */
    private boolean excusedNow(Hold hold) {
        drainLost();
        return hold.watchdog && lostReported(hold.owner, hold.name, hold.grantedAt);
    }

    private boolean lostReported(Owner owner, String name, long since) {
        return lostSeen.stream().anyMatch(l -> l.client() == owner.client && l.threadId() == owner.id
                && l.name().equals(name) && l.at() > since);
    }

    private void drainLost() {
        for (LeaseLost report; (report = lost.poll()) != null; ) {
            lostSeen.add(report);
            LeaseLost r = report;
            note("lease lost reported: c" + r.client() + " " + r.name() + " owner " + r.threadId());
            for (Hold hold : holds.values()) {
                if (hold.owner.client == r.client() && hold.owner.id == r.threadId() && hold.name.equals(r.name())
                        && hold.watchdog && !hold.uncertain && hold.grantedAt < r.at()) {
                    hold.doubt(hold.grantedAt, NEVER);
                }
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private Owner idleOwner(int index) {
        for (int i = 0; i < owners.size(); i++) {
            Owner owner = owners.get((index + i) % owners.size());
            if (owner.idle()) {
                return owner;
            }
        }
        return null;
    }

    private boolean pendingOn(String name) {
        return owners.stream().anyMatch(o -> o.pendings.stream().anyMatch(p -> p.name.equals(name)));
    }

    private Hold hold(Owner owner, String name, Side side) {
        return holds.computeIfAbsent(key(owner, name, side), k -> {
            Hold hold = new Hold(owner, name, side);
            hold.definiteUntil = 0;
            return hold;
        });
    }

    private static String key(Owner owner, String name, Side side) {
        return owner.index + "@" + name + "#" + side;
    }

    /** The hash field of {@code owner} on {@code side}: {@code <clientId>:<id>}, a writer's with {@code :write}. */
    private String field(Owner owner, Side side) {
        String client = owner.redisson() ? redisson.id() : clients.get(owner.client).getId();
        return client + ":" + owner.id + (side == Side.WRITE ? ":write" : "");
    }

    private RLock lock(int client, String name, Kind kind) {
        return lockObjects.computeIfAbsent(client + "/" + kind + "/" + name, k -> switch (kind) {
            case LOCK -> clients.get(client).getLock(name);
            case SPIN -> clients.get(client).getSpinLock(name);
            case FENCED -> clients.get(client).getFencedLock(name);
            case FAIR -> clients.get(client).getFairLock(name);
            case READ -> clients.get(client).getReadWriteLock(name).readLock();
            case WRITE -> clients.get(client).getReadWriteLock(name).writeLock();
        });
    }

    /** Runs a call that should answer at once; its failure, or null. */
    private Throwable call(java.util.function.Supplier<CompletableFuture<Void>> call, String what) {
        note(what);
        try {
            call.get().get(CALL_MILLIS, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw fail(what + " did not answer within " + CALL_MILLIS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        try {
            future.getNow(null);
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        } catch (CancellationException e) {
            return e;
        }
    }

    private static boolean awaitQuietly(CompletableFuture<?> future, long millis) {
        try {
            future.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | CancellationException e) {
            return true;
        }
        return true;
    }

    private static boolean awaitTrue(BooleanSupplier condition, long millis) {
        long until = System.nanoTime() + nanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                return false;
            }
            sleep(10);
        }
        return true;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String ms(long at) {
        return "+" + millis(at - startedAt) + "ms";
    }

    private void note(String line) {
        trace.add(ms(System.nanoTime()) + " " + line);
    }

    private void violation(String check, String message) {
        if (SKIP.contains(check)) {
            count("VIOLATION noted, not failing (padlock.model.skip): " + check);
            System.out.println("LockModel sequence " + sequence + ": VIOLATION (" + check + ", noted): " + message
                    + (Boolean.getBoolean("padlock.model.traces") ? "\n  " + String.join("\n  ",
                    trace.subList(Math.max(0, trace.size() - 60), trace.size())) : ""));
            note("VIOLATION (" + check + ", not failing: padlock.model.skip): " + message);
            return;
        }
        fail(message);
    }

    private AssertionError fail(String message) {
        return fail(message, null);
    }

    private AssertionError fail(String message, Throwable cause) {
        note("VIOLATION: " + message);
        List<String> tail = trace.subList(Math.max(0, trace.size() - 120), trace.size());
        AssertionError error = new AssertionError(message + "\n--- trace of sequence " + sequence + " ("
                + steps + " steps) ---\n" + String.join("\n", tail));
        if (cause != null) {
            error.initCause(cause);
        }
        throw error;
    }

    @Override
    public String toString() {
        return "LockModel(sequence " + sequence + ", " + steps + " steps)";
    }
}
