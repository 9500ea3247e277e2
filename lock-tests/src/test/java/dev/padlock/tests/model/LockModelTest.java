package dev.padlock.tests.model;

import dev.padlock.RLock;
import dev.padlock.tests.model.ModelBook.Kind;
import dev.padlock.tests.model.ModelBook.Mode;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * A stateful, model-based test (jqwik {@link ActionChain}) that hunts "two holders", "stuck waiter"
 * and "an owner is told it holds with lease L, and Redis disagrees" bugs across every lock kind and
 * the grant machinery: random sequences of acquisitions (watchdog and fixed leases up to
 * {@value LockModel#LONG_LEASE_MILLIS} ms, one-shot and waiting tryLocks, a second wait of an
 * owner while its first still waits, re-entry up to {@value LockModel#MAX_DEPTH} deep through any
 * kind of the same side, downgrades), unlocks by holders and non-holders, forceUnlock from any
 * client, external DEL, SCRIPT FLUSH, pauses, stalls of Redis (CLIENT PAUSE, below the command
 * timeout) and give-ups, run by two real Padlock clients (three asynchronous owners and a thread
 * each) and a Redisson client (two asynchronous owners) on a real Redis. Exclusive names are
 * shared by the plain, spin, fenced and fair locks and Redisson's {@code RLock}; read-write names by
 * both sides of both libraries' read-write locks. {@link LockModel} checks after every step:
 * <ol>
 *   <li>no two owners certainly hold one name at once (readers may share; a writer beside its own
 *       read holds only), and no hash on Redis shows two holders;</li>
 *   <li>every owner that certainly holds has its field on Redis with the hold count the model
 *       expects (one per successful acquisition, plus what its acquisitions in flight may add), a
 *       reader at least one live lease key, and every fixed lease the TTL it was promised: at least
 *       the lease, counted from before the acquisition that set it;</li>
 *   <li>a name Redis shows free, with a waiter of either library that may still wait, is acquired
 *       within {@value LockModel#LIVENESS_MILLIS} ms; a one-shot tryLock of a free name answers true;</li>
 *   <li>at the end, once everybody unlocked or gave up: no lock key, local queue, renewal or
 *       channel in use is left, and no key without expiry but fencing counters.</li>
 * </ol>
 * Seeded: {@value #DEFAULT_SEED} unless the system property {@value #SEED_PROPERTY} says another
 * ({@value #TRIES_PROPERTY} and {@value #STEPS_PROPERTY} change the size; {@code padlock.model.skip}
 * notes named checks instead of failing, for diagnosis only). The end of the run prints the number
 * of sequences and steps and what was exercised. Run it alone with
 * {@code mvn -B -pl lock-tests -am verify -Dtest=LockModelTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class LockModelTest {
    static final String SEED_PROPERTY = "padlock.model.seed";
    static final String TRIES_PROPERTY = "padlock.model.tries";
    static final String STEPS_PROPERTY = "padlock.model.steps";
    static final String DEFAULT_SEED = "20240611";
    static final int DEFAULT_TRIES = 25;
    static final int DEFAULT_STEPS = 80;

    private static final AtomicLong SEQUENCES = new AtomicLong();
    private static final AtomicLong STEPS = new AtomicLong();
    private static final List<LockModel> OPEN = new ArrayList<>();
    private static RedisEndpoint redis;
    private static RedisAdmin admin;
    private static RedissonActor redisson;
    private static long startedAt;

    @BeforeContainer
    static void startRedis() {
        redis = RedisProvisioner.provision();
        admin = redis.admin();
        redisson = RedissonActor.connect(redis.uri());
        startedAt = System.nanoTime();
    }

    @AfterContainer
    static void stopRedis() {
        System.out.printf("LockModelTest: %d sequences, %d steps in %d s; exercised:%n", SEQUENCES.get(), STEPS.get(),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedAt));
        LockModel.EXERCISED.forEach((what, count) -> System.out.printf("  %-60s %d%n", what, count.sum()));
        try {
            if (redisson != null) {
                redisson.close();
            }
        } finally {
            try {
                if (admin != null) {
                    admin.close();
                }
            } finally {
                if (redis != null) {
                    redis.close();
                }
            }
        }
    }

    @Property(shrinking = ShrinkingMode.BOUNDED, afterFailure = AfterFailureMode.PREVIOUS_SEED)
    @AddLifecycleHook(Settings.class)
    void noTwoHoldersNoStuckWaiterNothingLeftBehind(@ForAll("sequences") ActionChain<LockModel> chain) {
        try {
            LockModel model = chain.run();
            model.finish();
        } finally {
            closeAll();
        }
    }

    @Provide
    Arbitrary<ActionChain<LockModel>> sequences() {
        Arbitrary<Integer> owner = Arbitraries.integers().between(0, LockModel.OWNERS - 1);
        Arbitrary<Integer> name = Arbitraries.integers().between(0, LockModel.NAMES - 1);
        Arbitrary<Integer> client = Arbitraries.integers().between(0, 2);
        Arbitrary<Integer> anyName = Arbitraries.integers().between(0, 2 * LockModel.NAMES - 1);
        Arbitrary<Kind> kind = Arbitraries.of(Kind.class);
        Arbitrary<Mode> mode = Arbitraries.of(Mode.class);
        Arbitrary<Long> lease = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(3, -1L), net.jqwik.api.Tuple.of(1, 300L),
                net.jqwik.api.Tuple.of(1, 500L), net.jqwik.api.Tuple.of(1, 800L), net.jqwik.api.Tuple.of(1, 2500L),
                net.jqwik.api.Tuple.of(2, LockModel.LONG_LEASE_MILLIS));
        Arbitrary<Long> wait = Arbitraries.of(100L, 300L, 600L);
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);

        Action.Independent<LockModel> acquire = () -> Combinators.combine(owner, name, kind, mode, lease, wait)
                .as((o, n, k, m, l, w) -> mutate("acquire(owner " + o + ", name " + n + ", " + k + ", " + m
                        + ", lease " + l + ", wait " + w + ")", model -> model.acquire(o, n, k, m, l, w)));
        Arbitrary<Mode> waiting = Arbitraries.of(Mode.LOCK, Mode.TRY_LONG, Mode.TRY_WAIT);
        Action.Independent<LockModel> secondWait = () -> Combinators.combine(pick, kind, waiting, lease, wait)
                .as((p, k, m, l, w) -> mutate("secondWait(waiter " + p + ", " + k + ", " + m + ", lease " + l
                        + ", wait " + w + ")", model -> model.secondWait(p, k, m, l, w)));
        Action.Independent<LockModel> unlock = () -> Combinators.combine(pick, kind)
                .as((p, k) -> mutate("unlock(holder " + p + ", " + k + ")", model -> model.unlock(p, k)));
        Action.Independent<LockModel> unlockByNonHolder = () -> Combinators.combine(owner, name, kind)
                .as((o, n, k) -> mutate("unlockByNonHolder(owner " + o + ", name " + n + ", " + k + ")",
                        model -> model.unlockByNonHolder(o, n, k)));
        Action.Independent<LockModel> forceUnlock = () -> Combinators.combine(client, name, kind)
                .as((c, n, k) -> mutate("forceUnlock(client " + c + ", name " + n + ", " + k + ")",
                        model -> model.forceUnlock(c, n, k)));
        Action.Independent<LockModel> delete = () -> anyName
                .map(n -> mutate("DEL(name " + n + ")", model -> model.delete(n)));
        Action.Independent<LockModel> scriptFlush = () -> Arbitraries.just(
                mutate("SCRIPT FLUSH", LockModel::scriptFlush));
        Action.Independent<LockModel> pause = () -> Arbitraries.of(300L, 500L, 800L)
                .map(ms -> mutate("pause(" + ms + " ms)", model -> model.pause(ms)));
        Action.Independent<LockModel> stall = () -> Arbitraries.of(300L, 600L, 800L)
                .map(ms -> mutate("stall(" + ms + " ms)", model -> model.stall(ms)));
        Action.Independent<LockModel> multiOnce = () -> owner
                .map(o -> mutate("multiOnce(owner " + o + ")", model -> model.multiOnce(o)));
        Action.Independent<LockModel> giveUp = () -> pick
                .map(p -> mutate("giveUp(waiter " + p + ")", model -> model.giveUp(p)));

        return ActionChain.startWith(LockModelTest::open)
                .withAction(10, acquire)
                .withAction(3, secondWait)
                .withAction(7, unlock)
                .withAction(1, unlockByNonHolder)
                .withAction(1, forceUnlock)
                .withAction(1, delete)
                .withAction(1, scriptFlush)
                .withAction(1, pause)
                .withAction(1, stall)
                .withAction(1, giveUp)
                .withAction(1, multiOnce)
                .withMaxTransformations(Integer.getInteger(STEPS_PROPERTY, DEFAULT_STEPS));
    }

    private static Transformer<LockModel> mutate(String description, java.util.function.Consumer<LockModel> step) {
        return Transformer.mutate(description, model -> {
            STEPS.incrementAndGet();
            step.accept(model);
        });
    }

    private static LockModel open() {
        SEQUENCES.incrementAndGet();
        LockModel model = new LockModel(admin, redis.uri(), redisson);
        synchronized (OPEN) {
            OPEN.add(model);
        }
        return model;
    }

    private static void closeAll() {
        List<LockModel> models;
        synchronized (OPEN) {
            models = new ArrayList<>(OPEN);
            OPEN.clear();
        }
        for (LockModel model : models) {
            model.close();
        }
    }

    /** The seed and the number of sequences, from system properties when given. */
    static final class Settings implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setSeed(System.getProperty(SEED_PROPERTY, DEFAULT_SEED));
            context.attributes().setTries(Integer.getInteger(TRIES_PROPERTY, DEFAULT_TRIES));
            return property.execute();
        }
    }
}
