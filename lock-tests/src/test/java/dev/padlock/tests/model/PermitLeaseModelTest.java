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
 * Permits as leases under random sequences (jqwik {@link ActionChain}, seeded and bounded): two
 * Padlock clients take permits of a permit-expirable semaphore with watchdog and fixed leases,
 * release them, add permits, let time pass, and die (a client closed: renewals stop, nothing is
 * released). {@link PermitLeaseModel} checks after every step that the free permits plus those in
 * use equal the total, that every lease told safe is on Redis, and that no ended lease still
 * counts. The seed is {@code padlock.model.seed} when given, as for {@link LockModelTest}.
 */
class PermitLeaseModelTest {
    static final String DEFAULT_SEED = "20261201";
    static final int DEFAULT_TRIES = 5;
    static final int DEFAULT_STEPS = 30;

    private static final List<PermitLeaseModel> OPEN = new ArrayList<>();
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
    void noEndedLeaseCountsAndNoSafeLeaseIsMissing(@ForAll("sequences") ActionChain<PermitLeaseModel> chain) {
        try {
            chain.run().finish();
        } finally {
            List<PermitLeaseModel> models;
            synchronized (OPEN) {
                models = new ArrayList<>(OPEN);
                OPEN.clear();
            }
            models.forEach(PermitLeaseModel::close);
        }
    }

    @Provide
    Arbitrary<ActionChain<PermitLeaseModel>> sequences() {
        Arbitrary<Integer> client = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);

        Action.Independent<PermitLeaseModel> add = () -> Combinators.combine(client, Arbitraries.integers().between(1, 2))
                .as((c, n) -> step("addPermits(client " + c + ", " + n + ")", model -> model.add(c, n)));
        Action.Independent<PermitLeaseModel> acquire = () -> Combinators.combine(client,
                Arbitraries.of(0L, 0L, 300L, 2_000L), Arbitraries.of(0L, 0L, 250L))
                .as((c, l, w) -> step("tryAcquire(client " + c + ", lease " + l + " ms, wait " + w + " ms)", model -> {
                    try {
                        model.acquire(c, l, w);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }));
        Action.Independent<PermitLeaseModel> release = () -> pick
                .map(p -> step("release(" + p + ")", model -> model.release(p)));
        Action.Independent<PermitLeaseModel> pause = () -> Arbitraries.of(200L, 700L)
                .map(ms -> step("pause(" + ms + " ms)", model -> model.pause(ms)));
        Action.Independent<PermitLeaseModel> kill = () -> client
                .map(c -> step("kill(client " + c + ")", model -> model.kill(c)));

        return ActionChain.startWith(PermitLeaseModelTest::open)
                .withAction(2, add)
                .withAction(6, acquire)
                .withAction(4, release)
                .withAction(2, pause)
                .withAction(1, kill)
                .withMaxTransformations(Integer.getInteger(LockModelTest.STEPS_PROPERTY, DEFAULT_STEPS));
    }

    private static Transformer<PermitLeaseModel> step(String description, java.util.function.Consumer<PermitLeaseModel> step) {
        return Transformer.mutate(description, step);
    }

    private static PermitLeaseModel open() {
        PermitLeaseModel model = new PermitLeaseModel(admin, redis.uri());
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
