package dev.padlock.spring.boot.locked;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.LockClient;
import dev.padlock.LockLease;
import dev.padlock.micrometer.PadlockMetrics;
import dev.padlock.spring.LockNotAcquiredException;
import dev.padlock.spring.boot.PadlockAutoConfiguration;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @Locked} on blocking methods, on a real Redis, with the line the module has (this
 * source runs on Boot 4 in the starter and on Boot 3.5 in padlock-spring-boot3-tests): held while
 * the method runs, released after a return and a throw, each kind, a wait that runs out, the
 * startup checks, the meters, and proxies made with and without AspectJ and Boot's AOP
 * auto-configuration.
 */
@RedisTest
class LockedMethodsTest {
    private ApplicationContextRunner runner;

    @BeforeEach
    void runner(RedisEndpoint redis) {
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PadlockAutoConfiguration.class, LockedAutoConfiguration.class))
                .withPropertyValues("padlock.uri=" + redis.uri())
                .withUserConfiguration(LockedBeans.OrdersConfiguration.class);
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }

    @Test
    void theMethodRunsUnderTheLockWhichIsReleasedAfterAReturnAndAThrow() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            LockClient client = context.getBean(LockClient.class);
            String id = id();

            assertThat(orders.ship(id)).isEqualTo("shipped " + id);
            assertThat(orders.heldInside()).as("held on Redis inside the method").isTrue();
            assertThat(client.getLock("order:" + id).isLocked()).as("released after the return").isFalse();

            orders.forget();
            assertThatThrownBy(() -> orders.fail(id)).isInstanceOf(IllegalStateException.class).hasMessage("boom " + id);
            assertThat(orders.heldInside()).isTrue();
            assertThat(client.getLock("order:" + id).isLocked()).as("released after the throw").isFalse();
            assertThat(orders.plain()).isEqualTo("plain");
        });
    }

    @Test
    void aCallerThatCannotAcquireInTimeGetsLockNotAcquiredAndTheMethodDoesNotRun() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            String id = id();
            try (LockLease other = context.getBean(LockClient.class).getLock("order:" + id).acquire()) {
                assertThatThrownBy(() -> orders.impatient(id)).isInstanceOf(LockNotAcquiredException.class)
                        .hasMessageContaining("'order:" + id + "'").hasMessageContaining("impatient")
                        .satisfies(e -> assertThat(((LockNotAcquiredException) e).lockName()).isEqualTo("order:" + id));
                assertThat(orders.runs()).isEqualTo(0);
            }
            orders.impatient(id);
            assertThat(orders.runs()).isEqualTo(1);
        });
    }

    @Test
    void eachKindIsTheLockOfThatKind() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            LockClient client = context.getBean(LockClient.class);
            String id = id();
            orders.fair(id);
            assertThat(orders.heldInside()).as("FAIR").isTrue();
            orders.forget();
            orders.read(id);
            assertThat(orders.heldInside()).as("READ: shared with readers, not with a writer").isTrue();
            orders.forget();
            orders.write(id);
            assertThat(orders.heldInside()).as("WRITE: exclusive").isTrue();
            orders.forget();
            orders.fenced(id);
            assertThat(orders.heldInside()).as("FENCED: a token while held").isTrue();
            assertThat(client.getFairLock("fair:" + id).isLocked()).isFalse();
            assertThat(client.getReadWriteLock("rw:" + id).writeLock().isLocked()).isFalse();
            assertThat(client.getFencedLock("fenced:" + id).getToken()).isNull();
        });
    }

    @Test
    void aNullOrBlankNameFailsTheCallBeforeRedis() {
        runner.run(context -> {
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            assertThatThrownBy(() -> orders.named(" ")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("named(String)").hasMessageContaining("blank");
            assertThatThrownBy(() -> orders.named(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is null");
            assertThat(orders.runs()).isEqualTo(0);
        });
    }

    @Test
    void badAttributesFailTheStartupNamingTheMethod() {
        assertStartupFails(LockedBeans.BadName.class, "BadName.ship(String): name \"'order:' +\" is not a SpEL expression");
        assertStartupFails(LockedBeans.BadWait.class, "BadWait.ship(String): waitTime \"soon\" is not a duration");
        assertStartupFails(LockedBeans.UnknownParameter.class, "UnknownParameter.ship(String): name \"'order:' + #order\" "
                + "refers to #order, but the parameters' names are not in the class file (compile with -parameters");
        assertStartupFails(LockedBeans.BareNumber.class, "BareNumber.ship(): leaseTime \"30\" has no unit");
        assertStartupFails(LockedBeans.SecondBad.class, "SecondBad.second(): leaseTime \"-1s\" is negative");
    }

    private void assertStartupFails(Class<?> bean, String message) {
        runner.withBean(bean).run(context -> assertThat(context).hasFailed()
                .getFailure().hasMessageContaining(message));
    }

    @Test
    void aLockedCallShowsInTheMeters() {
        runner.run(context -> {
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            context.getBean(PadlockMetrics.class).bindTo(meters);
            context.getBean(LockedBeans.Orders.class).ship(id());
            assertThat(meters.get("padlock.lock.acquire").tag("outcome", "acquired").timer().count()).isOne();
            assertThat(meters.get("padlock.lock.held").timer().count()).isOne();
        });
    }

    @Test
    void proxiesAreMadeWithAndWithoutAspectJAndBootsAopAutoConfiguration() {
        ApplicationContextRunner withBootAop = runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class));
        withBootAop.run(context -> assertLocks(context, "AspectJ's auto proxy creator"));
        withBootAop.withClassLoader(new FilteredClassLoader("org.aspectj"))
                .run(context -> assertLocks(context, "Boot's class proxying without AspectJ"));
        withBootAop.withPropertyValues("spring.aop.auto=false")
                .run(context -> assertLocks(context, "Boot's AOP off: Padlock's infrastructure creator"));
        runner.run(context -> assertLocks(context, "no Boot AOP auto-configuration"));
    }

    private static void assertLocks(AssertableApplicationContext context, String how) {
        assertThat(context).as(how).hasNotFailed();
        LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
        assertThat(AopUtils.isAopProxy(orders)).as(how).isTrue();
        orders.ship(id());
        assertThat(orders.heldInside()).as(how).isTrue();
    }

    @Test
    void offWithThePropertyAndWithoutSpringAop() {
        runner.withPropertyValues("padlock.locked.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            LockedBeans.Orders orders = context.getBean(LockedBeans.Orders.class);
            assertThat(AopUtils.isAopProxy(orders)).isFalse();
            orders.ship(id());
            assertThat(orders.heldInside()).isFalse();
        });
        runner.withClassLoader(new FilteredClassLoader("org.springframework.aop.Advisor"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockedAdvisor.class));
    }
}
