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
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockConfig.Scripting#FUNCTIONS} (issue 40) for an ACL user that may not run
 * {@code EVAL}, {@code EVALSHA} or {@code SCRIPT}, only {@code FCALL} (and, when it loads the
 * library itself, {@code FUNCTION LIST} and {@code FUNCTION LOAD}): every kind locks, waits, hands
 * over and renews, with {@code ACL LOG} empty and not one {@code EVAL}; the library is
 * {@code padlock}, loaded by the application or beforehand by an administrator, and loaded again
 * after a {@code FUNCTION FLUSH}; two Padlock versions share it, each with its block, and both keep
 * working; a library {@code padlock} that Padlock did not write is refused, not replaced; a user
 * that may not load a missing library, the same user in the default mode, and a server without
 * functions each get an exception that says what to do. {@link FunctionsClusterTest} does the same
 * on a Cluster.
 */
@RedisTest(controllable = true)
class FunctionsAclTest {
    private static final String PASSWORD = "padlock-secret";
    private static final Duration WATCHDOG = Duration.ofMillis(1_500);
    /** What a whole scenario is given: catches a hang, not a slow machine. */
    private static final Duration BOUND = Duration.ofSeconds(120);
    /** The library rule for {@code orders:*} with FCALL in place of EVAL and EVALSHA. */
    private static final String CALLS_ONLY = PadlockAcl.rule("orders:").replace("+evalsha +eval ", "+fcall ");
    private static final String CALLS_AND_LOADS = CALLS_ONLY + " +function|list +function|load";
    /** The version of a stand-in for an older Padlock's block: this version's scripts under other names. */
    private static final String OLDER = "0123456789ab";

    private RedisAdmin admin;
    private String plainUri;

    @BeforeEach
    void open(RedisServerProcess server, RedisAdmin admin) {
        assumeTrue(server.majorVersion() >= 7, () -> "Redis Functions need Redis 7: " + server.version());
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
                assertThat(PadlockLibrary.names(admin)).as("loaded at connect").containsExactly("padlock");
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
            assertThat(PadlockLibrary.names(admin)).containsExactly("padlock");
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
                .hasMessageContaining("FUNCTION LOAD of Padlock's functions library padlock (its version")
                .hasMessageContaining("NOPERM")
                .hasMessageContaining("+function|list +function|load").hasMessageContaining("administrator")
                .hasMessageNotContaining(PASSWORD);
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_ONLY + " +function|load");
        assertThatThrownBy(() -> connect("orders-app", LockConfig.Scripting.FUNCTIONS).close())
                .as("loading reads the library first").isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("'function|list'").hasMessageContaining("+function|list +function|load");
        assertThat(PadlockLibrary.names(admin)).isEmpty();
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
                assertThat(PadlockLibrary.names(admin)).isEmpty();
                await().atMost(Duration.ofSeconds(10)).until(() -> PadlockLibrary.names(admin).size() == 1);
                await().during(WATCHDOG.multipliedBy(2)).atMost(Duration.ofSeconds(15)).until(() -> held.isHeldByThread(7L));
                held.unlockAsync(7L).get(15, TimeUnit.SECONDS);

                admin.commands().functionFlush(FlushMode.SYNC);
                EveryKindScenario.run(one, two, name, WATCHDOG);
                assertThat(PadlockLibrary.names(admin)).containsExactly("padlock");
            }
        });
        assertThat(PadlockAcl.denials(admin)).isEmpty();
    }

    /**
     * Two Padlock versions on one server during a rolling upgrade: an older version's block is in
     * the library {@code padlock} (a stand-in: this version's scripts under another version's
     * names); this version adds its own beside it, and the older version's functions still run on
     * the same locks. An older client that merged at the same moment and dropped this version's
     * block costs this version one more call, after which both are there, and from then on no
     * client reads or loads the library again.
     */
    @Test
    void twoPadlockVersionsShareTheLibraryPadlockAndBothKeepWorking() {
        PadlockAcl.setUser(admin, "orders-app", PASSWORD, CALLS_AND_LOADS);
        String ours;
        try (LockClient first = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
            ours = PadlockLibrary.code(admin);
        }
        String version = PadlockLibrary.versions(ours, "version").get(0);
        String older = PadlockLibrary.asVersion(ours, version, OLDER);
        admin.commands().functionFlush(FlushMode.SYNC);
        admin.commands().functionLoad(older);
        assertTimeoutPreemptively(BOUND, () -> {
            CommandStats before = admin.commandStats();
            try (LockClient one = connect("orders-app", LockConfig.Scripting.FUNCTIONS);
                    LockClient two = connect("orders-app", LockConfig.Scripting.FUNCTIONS)) {
                assertThat(CommandStats.delta(before, admin.commandStats()).calls("function|load"))
                        .as("one merge, by the first client").isEqualTo(1);
                String code = PadlockLibrary.code(admin);
                assertThat(PadlockLibrary.names(admin)).containsExactly("padlock");
                assertThat(PadlockLibrary.versions(code, "version")).containsExactly(OLDER, version);
                assertThat(PadlockLibrary.block(code, OLDER)).as("the older block kept verbatim")
                        .isEqualTo(PadlockLibrary.block(older, OLDER));

                // the older version's force-unlock frees a lock this version holds; this version's waiter gets it
                String name = "orders:" + UUID.randomUUID();
                one.getLock(name).lockAsync(-1, TimeUnit.MILLISECONDS, 1L).get(15, TimeUnit.SECONDS);
                CompletableFuture<Boolean> waiting = two.getLock(name).tryLockAsync(15_000, 10_000, TimeUnit.MILLISECONDS, 2L);
                Long freed = admin.commands().fcall("padlock_" + OLDER + "_lock_force_release", ScriptOutputType.INTEGER,
                        new String[] {name, "redisson_lock__channel:{" + name + "}", "padlock_since:{" + name + "}"},
                        "0", "publish");
                assertThat(freed).isOne();
                assertThat(waiting.get(15, TimeUnit.SECONDS)).isTrue();
                two.getLock(name).unlockAsync(2L).get(15, TimeUnit.SECONDS);

                // an older client's merge, racing this version's, left this version's block out
                admin.commands().functionLoad(older, true);
                RLock plain = one.getLock(name + ":after-drop");
                assertThat(plain.tryLock()).as("sent once more after the merge").isTrue();
                plain.unlock();
                code = PadlockLibrary.code(admin);
                assertThat(PadlockLibrary.versions(code, "version")).containsExactly(OLDER, version);

                CommandStats settled = admin.commandStats();
                EveryKindScenario.run(one, two, name + ":kinds", WATCHDOG);
                CommandStats used = CommandStats.delta(settled, admin.commandStats());
                assertThat(used.calls("function|load") + used.calls("function|list")).as("no reload").isZero();
            }
        });
        assertThat(PadlockAcl.denials(admin)).isEmpty();
    }

    /** A library named {@code padlock} that is not Padlock's (no version blocks) fails {@code create} and stays as it was. */
    @Test
    void aLibraryNamedPadlockThatPadlockDidNotWriteIsRefusedAndLeftAsItWas() {
        String foreign = "#!lua name=padlock\nredis.register_function('hello', function() return 'hi' end)\n";
        admin.commands().functionLoad(foreign);
        assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(plainUri)
                .scripting(LockConfig.Scripting.FUNCTIONS).clientRegistry(false).build()).close())
                .isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("functions library named padlock that Padlock did not write")
                .hasMessageContaining("FUNCTION DELETE padlock").hasMessageContaining("LockConfig.Scripting.EVAL");
        assertThat(PadlockLibrary.code(admin)).isEqualTo(foreign);
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
        String code = PadlockLibrary.code(admin);
        assertThat(PadlockLibrary.names(admin)).as("in the library padlock").containsExactly("padlock");
        assertThat(PadlockLibrary.versions(code, "extension")).as("one block a ShedLock script").hasSize(3);
        assertThat(PadlockLibrary.versions(code, "version")).as("beside this version's block").hasSize(1);
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

    private LockClient connect(String user, LockConfig.Scripting scripting) {
        return LockClient.create(LockConfig.builder()
                .redisUri(PadlockAcl.withUser(plainUri, user, PASSWORD))
                .scripting(scripting)
                .commandTimeout(Duration.ofSeconds(3))
                .watchdogTimeout(WATCHDOG)
                .build());
    }
}
