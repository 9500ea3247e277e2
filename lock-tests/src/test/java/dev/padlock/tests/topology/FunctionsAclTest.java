package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.RedisCommandException;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisBinary;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.FlushMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockConfig.Scripting#FUNCTIONS} (issue 40) for an ACL user that may not run
 * {@code EVAL}, {@code EVALSHA} or {@code SCRIPT}, only {@code FCALL} (and, when it loads the
 * library itself, {@code FUNCTION LOAD}): every kind locks, waits, hands over and renews, with
 * {@code ACL LOG} empty and not one {@code EVAL}; the library is its version's own, loaded by the
 * application or beforehand by an administrator, and loaded again after a {@code FUNCTION FLUSH};
 * a user that may not load a missing library, the same user in the default mode, and a server
 * without functions each get an exception that says what to do. {@link FunctionsClusterTest} does
 * the same on a Cluster.
 */
@RedisTest(controllable = true)
class FunctionsAclTest {
    private static final String PASSWORD = "padlock-secret";
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    /** What a whole scenario is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(120);
    /** The library rule for {@code orders:*} with FCALL in place of EVAL and EVALSHA. */
    private static final String CALLS_ONLY = PadlockAcl.rule("orders:").replace("+evalsha +eval ", "+fcall ");
    private static final String CALLS_AND_LOADS = CALLS_ONLY + " +function|load";

    private RedisAdmin admin;
    private String plainUri;

    @BeforeEach
    void open(RedisServerProcess server, RedisAdmin admin) {
        this.admin = admin;
        this.plainUri = server.uri();
        admin.commands().functionFlush(FlushMode.SYNC);
        admin.commands().aclLogReset();
        assertThat(CALLS_ONLY).doesNotContain("eval").contains("-@all");
    }

    @Test
    void everyKindLocksWaitsHandsOverAndRenewsForAUserThatLoadsTheLibraryAndMayNotEval() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_AND_LOADS);
        assertTimeoutPreemptively(BOUND, () -> {
            CommandStats before = admin.commandStats();
            try (LockClient one = connect("orders-app", LockConfig.Scripting.FUNCTIONS);
                    LockClient two = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
                assertThat(padlockLibraries()).as("loaded at connect").hasSize(1);
                EveryKindScenario.run(one, two, "orders:" + UUID.randomUUID(), WATCHDOG);
                CommandStats used = CommandStats.delta(before, admin.commandStats());
                assertThat(used.calls("fcall")).isPositive();
                assertThat(used.calls("eval") + used.calls("evalsha") + used.calls("eval_ro") + used.calls("evalsha_ro"))
                        .as("no EVAL of any kind").isZero();
                assertThat(used.calls("function|load")).as("loaded once, by the first client").isEqualTo(1);
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("ACL LOG: what Redis denied the user").isEmpty();
    }

    @Test
    void aLibraryAnAdministratorLoadedServesAUserThatMayOnlyCallIt() {
        try (LockClient administrator = LockClient.create(LockConfig.builder().redisUri(plainUri)
                .scripting(LockConfig.Scripting.FUNCTIONS).clientRegistry(false).build())) {
            assertThat(padlockLibraries()).hasSize(1);
        }
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_ONLY);
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient one = connect("orders-app", LockConfig.Scripting.FUNCTIONS);
                    LockClient two = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
                RLock[] pair = EveryKindScenario.kinds("orders:" + UUID.randomUUID()).get("fair").apply(one, two);
                pair[0].lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(15, TimeUnit.SECONDS);
                assertThat(pair[1].tryLockAsync(0, 10_000, TimeUnit.MILLISECONDS, 2L).get(15, TimeUnit.SECONDS)).isFalse();
                pair[0].unlockAsync(1L).get(15, TimeUnit.SECONDS);
                assertThat(pair[1].tryLockAsync(0, 10_000, TimeUnit.MILLISECONDS, 2L).get(15, TimeUnit.SECONDS)).isTrue();
                pair[1].unlockAsync(2L).get(15, TimeUnit.SECONDS);
            }
        });
        assertThat(PadlockAcl.denials(admin)).as("the library was there: no load was tried").isEmpty();
    }

    @Test
    void aUserThatMayNotLoadAMissingLibraryFailsCreateNamingTheRuleAndTheAdministrator() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_ONLY);
        assertThatThrownBy(() -> connect("orders-app", LockConfig.Scripting.FUNCTIONS).close())
                .isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("FUNCTION LOAD of Padlock's functions library padlock_")
                .hasMessageContaining("NOPERM")
                .hasMessageContaining("+function|load").hasMessageContaining("administrator")
                .hasMessageNotContaining(PASSWORD);
        assertThat(padlockLibraries()).isEmpty();
    }

    @Test
    void theSameUserInTheDefaultModeIsToldAtItsFirstCallWhichRuleIsMissingAndThatFunctionsAreTheOtherWay() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_AND_LOADS);
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient client = connect("orders-app", LockConfig.Scripting.EVAL)) {
                RLock lock = client.getLock("orders:eval-denied");
                assertThatThrownBy(lock::tryLock).isInstanceOf(RedisCommandException.class)
                        .hasMessageContaining("orders:eval-denied")
                        .hasMessageContaining("NOPERM")
                        .hasMessageContaining("'evalsha'")
                        .hasMessageContaining("+eval +evalsha").hasMessageContaining("+@scripting")
                        .hasMessageContaining("LockConfig.Scripting.FUNCTIONS");
            }
        });
        assertThat(admin.commands().exists("orders:eval-denied")).isZero();
    }

    /**
     * A {@code FUNCTION FLUSH} under a running client: the next call of each kind finds its function
     * missing, loads the library and is sent once more; a held lock's renewal, which is not sent
     * twice, fails once and the next round renews it.
     */
    @Test
    void afterAFunctionFlushTheLibraryIsLoadedAgainAndAHeldLockStaysRenewed() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_AND_LOADS);
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient one = connect("orders-app", LockConfig.Scripting.FUNCTIONS);
                    LockClient two = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
                String name = "orders:" + UUID.randomUUID();
                RLock held = one.getLock(name + ":held");
                held.lockAsync(-1, TimeUnit.MILLISECONDS, 7L).get(15, TimeUnit.SECONDS);
                admin.commands().functionFlush(FlushMode.SYNC);
                assertThat(padlockLibraries()).isEmpty();
                await().atMost(Duration.ofSeconds(10)).until(() -> padlockLibraries().size() == 1);
                await().during(WATCHDOG.multipliedBy(2)).atMost(Duration.ofSeconds(15)).until(() -> held.isHeldByThread(7L));
                held.unlockAsync(7L).get(15, TimeUnit.SECONDS);

                admin.commands().functionFlush(FlushMode.SYNC);
                EveryKindScenario.run(one, two, name, WATCHDOG);
                assertThat(padlockLibraries()).hasSize(1);
            }
        });
        assertThat(PadlockAcl.denials(admin)).isEmpty();
    }

    /**
     * Two Padlock versions on one server: a client finds another version's library (here a
     * stand-in) and loads its own beside it, never in its place.
     */
    @Test
    void anotherVersionsLibraryIsLeftAloneAndThisVersionLoadsItsOwnBesideIt() {
        admin.commands().functionLoad("#!lua name=padlock_000000000000\n"
                + "redis.register_function{function_name='padlock_000000000000_version', callback=function()"
                + " return '000000000000' end, flags={'no-writes'}}\n");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(plainUri)
                .scripting(LockConfig.Scripting.FUNCTIONS).clientRegistry(false).build())) {
            assertThat(client.getLock("orders:beside").tryLock()).isTrue();
            client.getLock("orders:beside").unlock();
        }
        List<String> libraries = padlockLibraries();
        assertThat(libraries).hasSize(2).contains("padlock_000000000000")
                .allMatch(name -> name.matches("padlock_[0-9a-f]{12}"));
    }

    /** lock-shedlock's scripts go through the same route: each a library of its own, loaded at its first call. */
    @Test
    void shedLocksScriptsRunAsFunctionsToo() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_AND_LOADS);
        assertTimeoutPreemptively(BOUND, () -> {
            try (LockClient client = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
                PadlockLockProvider provider = new PadlockLockProvider(client, "orders:shedlock:");
                LockConfiguration job = new LockConfiguration(ClockProvider.now(), "job", Duration.ofSeconds(30), Duration.ZERO);
                Optional<SimpleLock> hold = provider.lock(job);
                assertThat(hold).isPresent();
                assertThat(provider.lock(job)).as("held").isEmpty();
                Optional<SimpleLock> extended = hold.get().extend(Duration.ofSeconds(40), Duration.ZERO);
                assertThat(extended).isPresent();
                extended.get().unlock();
                assertThat(admin.commands().exists("orders:shedlock:job")).isZero();
            }
        });
        assertThat(admin.commands().functionList("padlock_ext_*")).as("one library a ShedLock script").hasSize(3);
        assertThat(PadlockAcl.denials(admin)).isEmpty();
    }

    @Test
    void aServerWithoutFunctionsFailsCreateSayingSo() {
        Optional<RedisBinary> embedded = RedisBinary.embedded();
        assumeTrue(embedded.isPresent(), "the embedded-redis jar has no binary for this platform");
        try (RedisServerProcess redis62 = RedisServerProcess.start(embedded.get().path(), List.of())) {
            assumeTrue(redis62.majorVersion() < 7, "the embedded binary has functions: " + redis62.version());
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(redis62.uri())
                    .scripting(LockConfig.Scripting.FUNCTIONS).build()).close())
                    .isInstanceOf(RedisCommandException.class)
                    .hasMessageContaining(String.valueOf(redis62.port()))
                    .hasMessageContaining("no Redis Functions").hasMessageContaining("LockConfig.Scripting.EVAL");
        }
    }

    private List<String> padlockLibraries() {
        return admin.commands().functionList("padlock_*").stream()
                .map(library -> (String) library.get("library_name"))
                .filter(name -> !name.startsWith("padlock_ext_"))
                .toList();
    }

    private LockClient connect(String user, LockConfig.Scripting scripting) {
        return LockClient.create(LockConfig.builder()
                .redisUri(PadlockAcl.withUser(plainUri, user, PASSWORD))
                .scripting(scripting)
                .commandTimeout(Duration.ofSeconds(3))
                .watchdogTimeout(WATCHDOG)
                .build());
    }
}
