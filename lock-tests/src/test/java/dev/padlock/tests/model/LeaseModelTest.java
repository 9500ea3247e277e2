package dev.padlock.tests.model;

import dev.padlock.tests.model.LeaseModel.Kind;
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
 * Leases under random sequences (jqwik {@link ActionChain}, seeded and bounded): two real clients
 * take leases of every kind (watchdog and fixed, waiting or not) and release them on other
 * threads, while forceUnlocks, external DELs, extensions and the passing of time interfere.
 * {@link LeaseModel} checks a lease's promise after every step: safe means held, with a TTL at
 * least as long on Redis, and never two safe leases on an exclusive side. The seed is
 * {@code padlock.model.seed} when given, as for {@link LockModelTest}.
 */
class LeaseModelTest {
    static final String DEFAULT_SEED = "20261128";
    static final int DEFAULT_TRIES = 8;
    static final int DEFAULT_STEPS = 40;

    private static final List<LeaseModel> OPEN = new ArrayList<>();
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
    void aSafeLeaseIsHeldOnRedisAndAlone(@ForAll("sequences") ActionChain<LeaseModel> chain) {
        try {
            chain.run().finish();
        } finally {
            List<LeaseModel> models;
            synchronized (OPEN) {
                models = new ArrayList<>(OPEN);
                OPEN.clear();
            }
            models.forEach(LeaseModel::close);
        }
    }

    @Provide
    Arbitrary<ActionChain<LeaseModel>> sequences() {
        Arbitrary<Integer> client = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> name = Arbitraries.integers().between(0, LeaseModel.NAMES - 1);
        Arbitrary<Kind> kind = Arbitraries.of(Kind.class);
        Arbitrary<Long> wait = Arbitraries.of(0L, 100L, 400L);
        Arbitrary<Long> lease = Arbitraries.of(0L, 0L, 300L, 800L, 5_000L);
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);

        Action.Independent<LeaseModel> acquire = () -> Combinators.combine(client, name, kind, wait, lease)
                .as((c, n, k, w, l) -> step("acquire(client " + c + ", name " + n + ", " + k + ", wait " + w
                        + ", lease " + l + ")", model -> model.acquire(c, n, k, w, l)));
        Action.Independent<LeaseModel> release = () -> Combinators.combine(pick, Arbitraries.of(true, false))
                .as((p, a) -> step("release(" + p + (a ? ", async)" : ")"), model -> model.release(p, a)));
        Action.Independent<LeaseModel> forceUnlock = () -> Combinators.combine(client, name, kind)
                .as((c, n, k) -> step("forceUnlock(client " + c + ", name " + n + ", " + k + ")",
                        model -> model.forceUnlock(c, n, k)));
        Action.Independent<LeaseModel> delete = () -> Combinators.combine(name, Arbitraries.of(true, false))
                .as((n, rw) -> step("DEL(name " + n + (rw ? ", rw)" : ")"), model -> model.delete(n, rw)));
        Action.Independent<LeaseModel> pause = () -> Arbitraries.of(200L, 600L, 1_000L)
                .map(ms -> step("pause(" + ms + " ms)", model -> model.pause(ms)));
        Action.Independent<LeaseModel> extend = () -> Combinators.combine(pick, Arbitraries.of(500L, 3_000L))
                .as((p, ms) -> step("extend(" + p + ", " + ms + " ms)", model -> model.extend(p, ms)));

        return ActionChain.startWith(LeaseModelTest::open)
                .withAction(8, acquire)
                .withAction(6, release)
                .withAction(1, forceUnlock)
                .withAction(1, delete)
                .withAction(2, pause)
                .withAction(1, extend)
                .withMaxTransformations(Integer.getInteger(LockModelTest.STEPS_PROPERTY, DEFAULT_STEPS));
    }

    private static Transformer<LeaseModel> step(String description, java.util.function.Consumer<LeaseModel> step) {
        return Transformer.mutate(description, step);
    }

    private static LeaseModel open() {
        LeaseModel model = new LeaseModel(admin, redis.uri());
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
