package dev.padlock.tests.model;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.RedisProvisioner;
import java.util.ArrayList;
import java.util.List;
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
 * Permits of a counting semaphore under random sequences (jqwik {@link ActionChain}, seeded and
 * bounded): two Padlock clients and a Redisson client set, add and remove permits, take them at
 * once or wait for them (waits that end, or are cancelled), release and drain them, and let
 * several threads of one client contend for them (so releases hand permits to that client's
 * parked waiters).
 * {@link SemaphoreModel} checks after every step that the permits free on Redis plus those held
 * equal the total, so none is lost or made, and that a one-shot attempt with nobody waiting
 * succeeds exactly when enough are free. The seed is {@code padlock.model.seed} when given, as for
 * {@link LockModelTest}.
 */
class SemaphoreModelTest {
    static final String DEFAULT_SEED = "20261130";
    static final int DEFAULT_TRIES = 8;
    static final int DEFAULT_STEPS = 40;

    private static final List<SemaphoreModel> OPEN = new ArrayList<>();
    private static RedisEndpoint redis;
    private static RedisAdmin admin;

    @BeforeContainer
    static void startRedis() {
        redis = RedisProvisioner.provision();
        admin = redis.admin();
    }

    @AfterContainer
    static void stopRedis() {
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

    @Property(shrinking = ShrinkingMode.BOUNDED, afterFailure = AfterFailureMode.PREVIOUS_SEED)
    @AddLifecycleHook(Settings.class)
    void noPermitIsLostOrMade(@ForAll("sequences") ActionChain<SemaphoreModel> chain) {
        try {
            chain.run().finish();
        } finally {
            List<SemaphoreModel> models;
            synchronized (OPEN) {
                models = new ArrayList<>(OPEN);
                OPEN.clear();
            }
            models.forEach(SemaphoreModel::close);
        }
    }

    @Provide
    Arbitrary<ActionChain<SemaphoreModel>> sequences() {
        Arbitrary<Integer> actor = Arbitraries.integers().between(0, 2); // 2: Redisson
        Arbitrary<Integer> padlock = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> permits = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);

        Action.Independent<SemaphoreModel> trySet = () -> Combinators.combine(actor, Arbitraries.integers().between(1, 4))
                .as((a, n) -> step("trySetPermits(actor " + a + ", " + n + ")", model -> model.trySet(a, n)));
        Action.Independent<SemaphoreModel> add = () -> Combinators.combine(actor, Arbitraries.of(-2, -1, 1, 2, 3))
                .as((a, n) -> step("addPermits(actor " + a + ", " + n + ")", model -> model.add(a, n)));
        Action.Independent<SemaphoreModel> tryAcquire = () -> Combinators.combine(actor, permits)
                .as((a, n) -> step("tryAcquire(actor " + a + ", " + n + ")", model -> model.tryAcquire(a, n)));
        Action.Independent<SemaphoreModel> await = () -> Combinators.combine(padlock, permits, Arbitraries.of(0L, 150L, 2_000L))
                .as((c, n, w) -> step("tryAcquireAsync(client " + c + ", " + n + ", wait " + w + " ms)",
                        model -> model.startWait(c, n, w)));
        Action.Independent<SemaphoreModel> cancel = () -> pick.map(p -> step("cancel(" + p + ")", model -> model.cancel(p)));
        Action.Independent<SemaphoreModel> release = () -> Combinators.combine(actor, pick)
                .as((a, p) -> step("release(actor " + a + ", " + p + ")", model -> model.release(a, p)));
        Action.Independent<SemaphoreModel> contend = () -> Combinators.combine(padlock, Arbitraries.integers().between(2, 4),
                Arbitraries.integers().between(1, 4))
                .as((c, t, r) -> step("contend(client " + c + ", " + t + " threads, " + r + " rounds)",
                        model -> model.contend(c, t, r)));
        Action.Independent<SemaphoreModel> drain = () -> padlock
                .map(c -> step("drainPermits(client " + c + ")", model -> model.drain(c)));

        return ActionChain.startWith(SemaphoreModelTest::open)
                .withAction(2, trySet)
                .withAction(2, add)
                .withAction(5, tryAcquire)
                .withAction(5, await)
                .withAction(2, cancel)
                .withAction(6, release)
                .withAction(1, drain)
                .withAction(2, contend)
                .withMaxTransformations(Integer.getInteger(LockModelTest.STEPS_PROPERTY, DEFAULT_STEPS));
    }

    private static Transformer<SemaphoreModel> step(String description, java.util.function.Consumer<SemaphoreModel> step) {
        return Transformer.mutate(description, step);
    }

    private static SemaphoreModel open() {
        SemaphoreModel model = new SemaphoreModel(admin, redis.uri());
        synchronized (OPEN) {
            OPEN.add(model);
        }
        return model;
    }

    /** The seed from {@code padlock.model.seed} when given, and the number of sequences. */
    static final class Settings implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setSeed(System.getProperty(LockModelTest.SEED_PROPERTY, DEFAULT_SEED));
            context.attributes().setTries(DEFAULT_TRIES);
            return property.execute();
        }
    }
}
