package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 24: the five scripts of {@code lock-lua} that {@link LockScriptsTest} does not call
 * ({@code fair_settle}, {@code rw_read_renew}, {@code rw_force_release}, {@code fenced_token},
 * {@code client_register}), each run on its own with {@code EVAL} against a real Redis: every reply
 * its header documents, the keys, fields and TTLs it leaves, and what it publishes. Where a header
 * and the script disagree, the test follows the script and says so.
 *
 * <p>What a script publishes is watched with one pattern subscription to every channel whose name
 * contains the test's lock name (or client id): a script builds its channels from its KEYS and
 * ARGV, so no channel of that lock escapes it. Checked without sleeping, as in
 * {@link LockScriptsTest}: after the script, a marker is published on a matching channel and
 * waited for; one connection's messages keep Redis's order, so whatever the script published
 * arrives before the marker.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScriptRepliesTest {
    private static final String OWNER = "client-a:1";
    private static final String OTHER = "client-b:7";
    private static final long LONG_LEASE = 60_000;
    private static final long MID_LEASE = 30_000;
    private static final long SHORT_LEASE = 5_000;
    /** How far apart two PTTLs read one after the other may be: a generous bound, never waited for. */
    private static final long SLACK_MILLIS = 1_000;

    private RedisAdmin admin;
    private RedisClient subscriberClient;

    @BeforeAll
    void connect(RedisEndpoint redis, RedisAdmin admin) {
        this.admin = admin;
        this.subscriberClient = RedisClient.create(redis.uri());
    }

    @AfterAll
    void disconnect() {
        subscriberClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    /** {@code fair_settle}: a fair grantee's since, dated back to the grant, never the lease. */
    @Nested
    class FairSettle {
        @Test
        void aHolderWithoutASinceGetsOneDatedBackByTheElapsedTimeThatExpiresWithTheLock() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, MID_LEASE);
            try (Publishes publishes = watch(key)) {
                long before = redisMillis();

                assertThat(settle(key, OWNER, 1_500)).isEqualTo(1L);

                long after = redisMillis();
                assertThat(Long.parseLong(admin.commands().hget(since(key), OWNER)))
                        .as("Redis TIME less ARGV[2]").isBetween(before - 1_500, after - 1_500);
                assertExpiresWith(since(key), key);
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(admin.commands().pttl(key)).as("the lease not touched").isBetween(1L, MID_LEASE);
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void anotherOwnersEntryStaysAndTheWholeSinceHashTakesTheLocksTtl() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, MID_LEASE);
            admin.commands().hset(since(key), OTHER, "123");
            admin.commands().pexpire(since(key), SHORT_LEASE);

            assertThat(settle(key, OWNER, 0)).isEqualTo(1L);

            assertThat(admin.commands().hget(since(key), OTHER)).isEqualTo("123");
            assertThat(admin.commands().hexists(since(key), OWNER)).isTrue();
            assertExpiresWith(since(key), key);
        }

        @Test
        void aHolderThatAlreadyHasASinceGetsZeroAndItsEntryAndTtlStay() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, MID_LEASE);
            admin.commands().hset(since(key), OWNER, "123");
            admin.commands().pexpire(since(key), SHORT_LEASE);
            try (Publishes publishes = watch(key)) {

                assertThat(settle(key, OWNER, 0)).isZero();

                assertThat(admin.commands().hgetall(since(key))).isEqualTo(Map.of(OWNER, "123"));
                assertThat(admin.commands().pttl(since(key))).as("not re-armed").isBetween(1L, SHORT_LEASE);
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void anOwnerThatDoesNotHoldGetsZeroAndNothingIsWritten() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, MID_LEASE);
            try (Publishes publishes = watch(key)) {

                assertThat(settle(key, OWNER, 0)).isZero();

                assertThat(admin.commands().exists(since(key))).isZero();
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void aFreeLockGetsZeroAndNothingIsCreated() {
            String key = uniqueKey();

            assertThat(settle(key, OWNER, 0)).isZero();

            assertThat(admin.commands().exists(key, since(key))).isZero();
        }

        /**
         * The script's header says 1 "when the owner holds the lock and had no since"; the script
         * also needs a positive TTL on the lock (protocol.md says so), and answers 0 without one.
         */
        @Test
        void aHolderOfALockWithoutExpiryGetsZeroAndNoSince() {
            String key = uniqueKey();
            admin.commands().hset(key, OWNER, "1");

            assertThat(settle(key, OWNER, 0)).isZero();

            assertThat(admin.commands().exists(since(key))).isZero();
            assertThat(admin.commands().pttl(key)).as("still no expiry").isEqualTo(-1L);
        }

        private Long settle(String key, String field, long elapsedMillis) {
            return admin.commands().eval(LuaScript.FAIR_SETTLE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, since(key)}, field, Long.toString(elapsedMillis));
        }
    }

    /** {@code rw_read_renew}: the watchdog's renewal of read holds, many locks a call. */
    @Nested
    class ReadRenew {
        @Test
        void aLiveReaderGetsTheLeaseOnEachHoldAndTheHashAtLeastAsLongWhileOtherReadersKeepTheirs() {
            String key = uniqueKey();
            readHolds(key, OWNER, 2, SHORT_LEASE);
            readHolds(key, OTHER, 1, SHORT_LEASE);
            admin.commands().pexpire(key, SHORT_LEASE);
            admin.commands().psetex(lease(key, OWNER, 3), SHORT_LEASE, "1"); // beyond its hold count
            String firstHold = admin.commands().get(lease(key, OWNER, 1));
            try (Publishes publishes = watch(key)) {

                assertThat(renew(LONG_LEASE, key, OWNER)).containsExactly(1L);

                assertThat(admin.commands().pttl(lease(key, OWNER, 1))).isGreaterThan(SHORT_LEASE)
                        .isLessThanOrEqualTo(LONG_LEASE);
                assertThat(admin.commands().pttl(lease(key, OWNER, 2))).isGreaterThan(SHORT_LEASE)
                        .isLessThanOrEqualTo(LONG_LEASE);
                assertThat(admin.commands().get(lease(key, OWNER, 1))).as("hold 1 keeps its since").isEqualTo(firstHold);
                assertThat(admin.commands().pttl(lease(key, OWNER, 3))).as("holds 1..n only").isBetween(1L, SHORT_LEASE);
                assertThat(admin.commands().pttl(lease(key, OTHER, 1))).as("another reader's lease")
                        .isBetween(1L, SHORT_LEASE);
                assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE).isLessThanOrEqualTo(LONG_LEASE);
                assertThat(admin.commands().hgetall(key)).as("hold counts kept")
                        .isEqualTo(Map.of("mode", "read", OWNER, "2", OTHER, "1"));
                assertThat(admin.commands().exists(since(key))).as("not created").isZero();
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        /** A writer with its own read holds: its since is there, and its lease longer than the read lease. */
        @Test
        void aHashLongerThanTheLeaseKeepsItsTtlAndTheSinceTakesIt() {
            String key = uniqueKey();
            String writer = OWNER + ":write";
            admin.commands().hset(key, Map.of("mode", "write", writer, "1"));
            readHolds(key, OWNER, 1, SHORT_LEASE);
            admin.commands().pexpire(key, LONG_LEASE);
            admin.commands().hset(since(key), writer, "123");
            admin.commands().pexpire(since(key), SHORT_LEASE);

            assertThat(renew(MID_LEASE, key, OWNER)).containsExactly(1L);

            assertThat(admin.commands().pttl(lease(key, OWNER, 1))).isGreaterThan(SHORT_LEASE)
                    .isLessThanOrEqualTo(MID_LEASE);
            assertThat(admin.commands().pttl(key)).as("never shortened").isGreaterThan(MID_LEASE);
            assertExpiresWith(since(key), key);
            assertThat(admin.commands().hgetall(since(key))).isEqualTo(Map.of(writer, "123"));
        }

        @Test
        void aHashWithoutExpiryTakesTheLease() {
            String key = uniqueKey();
            readHolds(key, OWNER, 1, SHORT_LEASE);

            assertThat(renew(MID_LEASE, key, OWNER)).containsExactly(1L);

            assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE).isLessThanOrEqualTo(MID_LEASE);
        }

        @Test
        void aReaderWithOneHoldStillLiveIsRenewedAndItsLapsedHoldDoesNotComeBack() {
            String key = uniqueKey();
            readHolds(key, OWNER, 2, SHORT_LEASE);
            admin.commands().pexpire(key, SHORT_LEASE);
            admin.commands().del(lease(key, OWNER, 1));

            assertThat(renew(LONG_LEASE, key, OWNER)).containsExactly(1L);

            assertThat(admin.commands().exists(lease(key, OWNER, 1))).isZero();
            assertThat(admin.commands().pttl(lease(key, OWNER, 2))).isGreaterThan(SHORT_LEASE);
            assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aReaderWhoseEveryLeaseRanOutGetsZeroAndNothingMoves() {
            String key = uniqueKey();
            readHolds(key, OWNER, 2, SHORT_LEASE);
            readHolds(key, OTHER, 1, SHORT_LEASE);
            admin.commands().pexpire(key, SHORT_LEASE);
            admin.commands().del(lease(key, OWNER, 1), lease(key, OWNER, 2));
            admin.commands().hset(since(key), "x", "1");
            admin.commands().pexpire(since(key), SHORT_LEASE);
            try (Publishes publishes = watch(key)) {

                assertThat(renew(LONG_LEASE, key, OWNER)).containsExactly(0L);

                assertThat(admin.commands().exists(lease(key, OWNER, 1), lease(key, OWNER, 2))).isZero();
                assertThat(admin.commands().pttl(key)).isBetween(1L, SHORT_LEASE);
                assertThat(admin.commands().pttl(since(key))).isBetween(1L, SHORT_LEASE);
                assertThat(admin.commands().pttl(lease(key, OTHER, 1))).isBetween(1L, SHORT_LEASE);
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void aReaderWithoutAFieldGetsZeroEvenWithALeaseKeyLeftAndAMissingLockIsNotCreated() {
            String key = uniqueKey();
            String missing = uniqueKey();
            readHolds(key, OTHER, 1, SHORT_LEASE);
            admin.commands().pexpire(key, SHORT_LEASE);
            admin.commands().psetex(lease(key, OWNER, 1), SHORT_LEASE, "1"); // its field already gone

            assertThat(renew(LONG_LEASE, key, OWNER, missing, OWNER)).containsExactly(0L, 0L);

            assertThat(admin.commands().pttl(lease(key, OWNER, 1))).as("not renewed").isBetween(1L, SHORT_LEASE);
            assertThat(admin.commands().pttl(key)).isBetween(1L, SHORT_LEASE);
            assertThat(admin.commands().exists(missing, since(missing), lease(missing, OWNER, 1))).isZero();
        }

        @Test
        void aBatchAnswersEachLockInItsOrderAndAnEmptyBatchAnEmptyArray() {
            String lost = uniqueKey();
            String live = uniqueKey();
            String missing = uniqueKey();
            readHolds(lost, OWNER, 1, SHORT_LEASE);
            admin.commands().del(lease(lost, OWNER, 1));
            readHolds(live, OTHER, 1, SHORT_LEASE);

            assertThat(renew(LONG_LEASE, lost, OWNER, live, OTHER, missing, OWNER)).containsExactly(0L, 1L, 0L);
            assertThat(admin.commands().pttl(lease(live, OTHER, 1))).isGreaterThan(SHORT_LEASE);

            assertThat(renew(LONG_LEASE)).isEmpty();
        }

        /** A read hash in read mode (unless there already) with {@code holds} holds of {@code field}, each with a lease key. */
        private void readHolds(String key, String field, int holds, long leaseMillis) {
            admin.commands().hsetnx(key, "mode", "read");
            admin.commands().hset(key, field, Integer.toString(holds));
            for (int n = 1; n <= holds; n++) {
                admin.commands().psetex(lease(key, field, n), leaseMillis, n == 1 ? Long.toString(redisMillis()) : "1");
            }
        }

        /** {@code locksAndFields}: lock name, reader field, lock name, reader field, ... */
        private List<Long> renew(long leaseMillis, String... locksAndFields) {
            int n = locksAndFields.length / 2;
            String[] keys = new String[3 * n];
            String[] args = new String[1 + n];
            args[0] = Long.toString(leaseMillis);
            for (int i = 0; i < n; i++) {
                String key = locksAndFields[2 * i];
                String field = locksAndFields[2 * i + 1];
                keys[3 * i] = key;
                keys[3 * i + 1] = LockKeys.readLeasePrefix(key, field);
                keys[3 * i + 2] = since(key);
                args[i + 1] = field;
            }
            return admin.commands().eval(LuaScript.RW_READ_RENEW.body(), ScriptOutputType.MULTI, keys, args);
        }
    }

    /** {@code rw_force_release}: frees a read-write lock in one mode and wakes its waiters. */
    @Nested
    class ReadWriteForceRelease {
        private static final String READER = OTHER;
        private static final String WRITER = OWNER + ":write";
        private static final String FIRST = "client-c:2:write";
        private static final String SECOND = "client-d:4:write";
        private static final String WAITING_READER = "client-e:5";

        @Test
        void readModeFreedAsReadDeletesLockSinceHallAndTurnAndWakesTheFirstWriterThenEveryone() {
            String key = uniqueKey();
            readMode(key);
            waiters(key);
            try (Publishes publishes = watch(key)) {

                assertThat(forceRelease(key, "read")).isEqualTo(1L);

                assertThat(admin.commands().exists(key, since(key), LockKeys.readWriteReaders(key),
                        LockKeys.readWriteTurn(key))).isZero();
                assertWaitersLineAndGateStay(key);
                assertThat(admin.commands().pttl(lease(key, READER, 1))).as("read leases left to expire")
                        .isBetween(1L, LONG_LEASE);
                assertThat(publishes.soFar()).containsExactly(
                        Map.entry(LockKeys.readWriteWriterChannel(key, FIRST), LockKeys.READ_UNLOCK_MESSAGE),
                        Map.entry(LockKeys.readWriteChannel(key), LockKeys.READ_UNLOCK_MESSAGE));
            }
        }

        @Test
        void writeModeFreedAsWriteDeletesLockSinceHallAndTurnAndWakesTheFirstWriterThenEveryone() {
            String key = uniqueKey();
            writeMode(key);
            waiters(key);
            try (Publishes publishes = watch(key)) {

                assertThat(forceRelease(key, "write")).isEqualTo(1L);

                assertThat(admin.commands().exists(key, since(key), LockKeys.readWriteReaders(key),
                        LockKeys.readWriteTurn(key))).isZero();
                assertWaitersLineAndGateStay(key);
                assertThat(publishes.soFar()).containsExactly(
                        Map.entry(LockKeys.readWriteWriterChannel(key, FIRST), LockKeys.READ_UNLOCK_MESSAGE),
                        Map.entry(LockKeys.readWriteChannel(key), LockKeys.READ_UNLOCK_MESSAGE));
            }
        }

        @Test
        void theOtherModeGetsZeroAndNothingIsDeletedOrPublished() {
            String read = uniqueKey();
            String write = uniqueKey();
            readMode(read);
            waiters(read);
            writeMode(write);
            waiters(write);
            try (Publishes readPublishes = watch(read); Publishes writePublishes = watch(write)) {

                assertThat(forceRelease(read, "write")).isZero();
                assertThat(forceRelease(write, "read")).isZero();

                assertThat(admin.commands().hgetall(read)).isEqualTo(Map.of("mode", "read", READER, "1"));
                assertThat(admin.commands().hgetall(write)).isEqualTo(Map.of("mode", "write", WRITER, "1"));
                for (String key : List.of(read, write)) {
                    assertThat(admin.commands().exists(since(key), LockKeys.readWriteReaders(key),
                            LockKeys.readWriteTurn(key))).isEqualTo(3L);
                    assertWaitersLineAndGateStay(key);
                }
                assertThat(readPublishes.soFar()).isEmpty();
                assertThat(writePublishes.soFar()).isEmpty();
            }
        }

        @Test
        void aFreeLockGetsZeroAndItsLineHallAndTurnStay() {
            String key = uniqueKey();
            waiters(key);
            try (Publishes publishes = watch(key)) {

                assertThat(forceRelease(key, "read")).isZero();
                assertThat(forceRelease(key, "write")).isZero();

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(admin.commands().exists(LockKeys.readWriteReaders(key), LockKeys.readWriteTurn(key)))
                        .isEqualTo(2L);
                assertWaitersLineAndGateStay(key);
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void aHashWithoutModeLikeAnExclusiveLockOfTheSameNameGetsZeroInEitherMode() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            try (Publishes publishes = watch(key)) {

                assertThat(forceRelease(key, "read")).isZero();
                assertThat(forceRelease(key, "write")).isZero();

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void withNobodyInLineOrAHeadThatIsNoWriterPlaceOnlyTheSharedChannelHearsIt() {
            String empty = uniqueKey();
            String malformed = uniqueKey();
            readMode(empty);
            readMode(malformed);
            admin.commands().rpush(LockKeys.readWriteLine(malformed), "client-c:2:6000:1"); // no ":write"
            try (Publishes emptyPublishes = watch(empty); Publishes malformedPublishes = watch(malformed)) {

                assertThat(forceRelease(empty, "read")).isEqualTo(1L);
                assertThat(forceRelease(malformed, "read")).isEqualTo(1L);

                assertThat(emptyPublishes.soFar()).containsExactly(
                        Map.entry(LockKeys.readWriteChannel(empty), LockKeys.READ_UNLOCK_MESSAGE));
                assertThat(malformedPublishes.soFar()).containsExactly(
                        Map.entry(LockKeys.readWriteChannel(malformed), LockKeys.READ_UNLOCK_MESSAGE));
                assertThat(admin.commands().lrange(LockKeys.readWriteLine(malformed), 0, -1))
                        .containsExactly("client-c:2:6000:1");
            }
        }

        /**
         * The header says the script wakes "the first live writer in line"; it wakes the head of the
         * line, whose deadline it never reads, and drops nobody (the next attempt does).
         */
        @Test
        void theHeadOfTheLineIsWokenEvenWhenItsDeadlinePassedAndTheLiveWriterBehindItIsNot() {
            String key = uniqueKey();
            writeMode(key);
            waiters(key);
            admin.commands().zadd(LockKeys.readWriteDeadlines(key), 1.0, place(FIRST)); // long past
            try (Publishes publishes = watch(key)) {

                assertThat(forceRelease(key, "write")).isEqualTo(1L);

                assertThat(publishes.soFar()).containsExactly(
                        Map.entry(LockKeys.readWriteWriterChannel(key, FIRST), LockKeys.READ_UNLOCK_MESSAGE),
                        Map.entry(LockKeys.readWriteChannel(key), LockKeys.READ_UNLOCK_MESSAGE));
                assertThat(admin.commands().lrange(LockKeys.readWriteLine(key), 0, -1))
                        .containsExactly(place(FIRST), place(SECOND));
                assertThat(admin.commands().zscore(LockKeys.readWriteDeadlines(key), place(FIRST))).isEqualTo(1.0);
            }
        }

        /** Read mode: a reader with one hold and its lease key, the lock's TTL, and a since entry. */
        private void readMode(String key) {
            admin.commands().hset(key, Map.of("mode", "read", READER, "1"));
            admin.commands().pexpire(key, LONG_LEASE);
            admin.commands().psetex(lease(key, READER, 1), LONG_LEASE, Long.toString(redisMillis()));
            admin.commands().hset(since(key), WRITER, "123"); // a writer that downgraded, say
            admin.commands().pexpire(since(key), LONG_LEASE);
        }

        private void writeMode(String key) {
            admin.commands().hset(key, Map.of("mode", "write", WRITER, "1"));
            admin.commands().pexpire(key, LONG_LEASE);
            admin.commands().hset(since(key), WRITER, "123");
            admin.commands().pexpire(since(key), LONG_LEASE);
        }

        /** Two writers in line with live deadlines and the gate; a reader in the hall; the readers' turn. */
        private void waiters(String key) {
            long deadline = redisMillis() + LONG_LEASE;
            admin.commands().rpush(LockKeys.readWriteLine(key), place(FIRST), place(SECOND));
            admin.commands().pexpire(LockKeys.readWriteLine(key), LONG_LEASE);
            admin.commands().zadd(LockKeys.readWriteDeadlines(key), deadline, place(FIRST));
            admin.commands().zadd(LockKeys.readWriteDeadlines(key), deadline, place(SECOND));
            admin.commands().pexpire(LockKeys.readWriteDeadlines(key), LONG_LEASE);
            admin.commands().psetex(LockKeys.readWriteGate(key), LONG_LEASE, "1");
            admin.commands().hset(LockKeys.readWriteReaders(key), WAITING_READER, "6000:9");
            admin.commands().pexpire(LockKeys.readWriteReaders(key), LONG_LEASE);
            admin.commands().psetex(LockKeys.readWriteTurn(key), LONG_LEASE, "1");
        }

        private void assertWaitersLineAndGateStay(String key) {
            assertThat(admin.commands().lrange(LockKeys.readWriteLine(key), 0, -1))
                    .as("the line keeps its order").containsExactly(place(FIRST), place(SECOND));
            assertThat(admin.commands().zcard(LockKeys.readWriteDeadlines(key))).isEqualTo(2L);
            assertThat(admin.commands().pttl(LockKeys.readWriteGate(key))).as("the gate lapses on its own")
                    .isBetween(1L, LONG_LEASE);
        }

        /** A writer's place: {@code <writer field>:<lease ms>:<nonce>}. */
        private String place(String writer) {
            return writer + ":6000:1";
        }

        private Long forceRelease(String key, String mode) {
            return admin.commands().eval(LuaScript.RW_FORCE_RELEASE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readWriteChannel(key), since(key), LockKeys.readWriteLine(key),
                        LockKeys.readWriteReaders(key), LockKeys.readWriteTurn(key)},
                    LockKeys.READ_UNLOCK_MESSAGE, mode, "publish");
        }
    }

    /** {@code fenced_token}: the token of a fenced lock's holder, read only. */
    @Nested
    class FencedToken {
        @Test
        void aHeldLockGivesTheTokenItsHolderGotAndAReEntryKeepsIt() {
            String key = uniqueKey();
            List<Long> acquired = fencedAcquire(key, OWNER);
            assertThat(acquired.get(0)).isEqualTo(1L);
            long token = acquired.get(1);
            try (Publishes publishes = watch(key)) {

                assertThat(token(key)).isEqualTo(token);
                assertThat(fencedAcquire(key, OWNER)).containsExactly(1L, token);
                assertThat(token(key)).as("after a re-entry").isEqualTo(token);

                assertThat(admin.commands().get(LockKeys.fencingTokens(key))).isEqualTo(Long.toString(token));
                assertThat(admin.commands().pttl(LockKeys.fencingTokens(key))).as("the counter never expires")
                        .isEqualTo(-1L);
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "2"));
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void aFreeLockGivesNilAndTheCounterStaysAsItIs() {
            String key = uniqueKey();
            long token = fencedAcquire(key, OWNER).get(1);
            admin.commands().del(key); // released, or its lease ran out

            assertThat(token(key)).isNull();

            assertThat(admin.commands().get(LockKeys.fencingTokens(key))).isEqualTo(Long.toString(token));
            assertThat(admin.commands().exists(key)).isZero();
        }

        @Test
        void aNameNeverUsedGivesNilAndNoCounterIsCreated() {
            String key = uniqueKey();

            assertThat(token(key)).isNull();

            assertThat(admin.commands().exists(key, LockKeys.fencingTokens(key))).isZero();
        }

        /** Not in the header: the script answers 0 (not nil, not an error) for a held lock with no counter. */
        @Test
        void aHeldLockWithoutACounterGivesZeroAndCreatesNone() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);

            assertThat(token(key)).isZero();

            assertThat(admin.commands().exists(LockKeys.fencingTokens(key))).isZero();
        }

        /**
         * The header's "the holder's token" holds for a fenced holder only: any holder (a plain
         * one, as a plain release's grant makes) gets the counter's value, the last fenced token.
         */
        @Test
        void aHolderThatGotNoTokenGivesTheCountersLastValue() {
            String key = uniqueKey();
            long token = fencedAcquire(key, OWNER).get(1);
            admin.commands().del(key);
            holdWith(key, OTHER, 1, LONG_LEASE); // a plain hold: no new token

            assertThat(token(key)).isEqualTo(token);
        }

        private Long token(String key) {
            return admin.commands().eval(LuaScript.FENCED_TOKEN.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.fencingTokens(key)});
        }

        private List<Long> fencedAcquire(String key, String field) {
            return admin.commands().eval(LuaScript.FENCED_ACQUIRE.body(), ScriptOutputType.MULTI,
                    new String[] {key, LockKeys.fencingTokens(key), since(key)}, Long.toString(LONG_LEASE), field);
        }
    }

    /** {@code client_register}: a client's entry, never without its expiry. */
    @Nested
    class ClientRegister {
        @Test
        void aNewEntryGetsEveryFieldAndTheTtlAndOneIsReturned() {
            String clientId = uniqueClientId();
            Map<String, String> fields = registrationFields(clientId, "1700000000000");
            try (Publishes publishes = watch(clientId)) {

                assertThat(register(clientId, LONG_LEASE, fields)).isEqualTo(1L);

                assertThat(admin.commands().hgetall(LockKeys.client(clientId))).isEqualTo(fields);
                assertThat(admin.commands().pttl(LockKeys.client(clientId))).isBetween(LONG_LEASE - 10_000, LONG_LEASE);
                assertThat(publishes.soFar()).isEmpty();
            }
        }

        @Test
        void aWriteAgainSetsItsValuesAndTheExpiryAndKeepsFieldsItDoesNotName() {
            String clientId = uniqueClientId();
            String key = LockKeys.client(clientId);
            admin.commands().hset(key, Map.of("id", clientId, "started", "1", "extra", "kept"));
            assertThat(admin.commands().pttl(key)).as("an entry without expiry, as no Padlock write leaves it")
                    .isEqualTo(-1L);

            assertThat(register(clientId, MID_LEASE, Map.of("id", clientId, "started", "2"))).isEqualTo(1L);

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("id", clientId, "started", "2", "extra", "kept"));
            assertThat(admin.commands().pttl(key)).isBetween(MID_LEASE - 10_000, MID_LEASE);
        }

        /** The header's fields run k = 1..n; with n = 0 the script fails instead of answering 1. */
        @Test
        void withoutAnyFieldItFailsAndCreatesNothing() {
            String clientId = uniqueClientId();

            assertThatThrownBy(() -> register(clientId, LONG_LEASE, Map.of()))
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .satisfies(e -> assertThat(e.getMessage()).containsIgnoringCase("wrong number of arg"));

            assertThat(admin.commands().exists(LockKeys.client(clientId))).isZero();
        }

        @Test
        void aFieldWithoutItsValueFailsAndLeavesTheEntryAsItWas() {
            String clientId = uniqueClientId();
            String key = LockKeys.client(clientId);
            admin.commands().hset(key, "id", clientId);
            admin.commands().pexpire(key, SHORT_LEASE);

            assertThatThrownBy(() -> admin.commands().eval(LuaScript.CLIENT_REGISTER.body(), ScriptOutputType.INTEGER,
                    new String[] {key}, Long.toString(LONG_LEASE), "id", "changed", "host"))
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .satisfies(e -> assertThat(e.getMessage()).containsIgnoringCase("wrong number of arg"));

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("id", clientId));
            assertThat(admin.commands().pttl(key)).as("not re-armed").isBetween(1L, SHORT_LEASE);
        }

        /** The fields {@code ClientRegistration} writes, in its order. */
        private Map<String, String> registrationFields(String clientId, String started) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("id", clientId);
            fields.put("application", "script-replies");
            fields.put("host", "test-host");
            fields.put("pid", "4242");
            fields.put("version", "0.0.0-test");
            fields.put("started", started);
            fields.put("watchdogMillis", "30000");
            fields.put("java", "17");
            return fields;
        }

        private Long register(String clientId, long ttlMillis, Map<String, String> fields) {
            String[] args = new String[1 + 2 * fields.size()];
            args[0] = Long.toString(ttlMillis);
            int i = 1;
            for (Map.Entry<String, String> field : fields.entrySet()) {
                args[i++] = field.getKey();
                args[i++] = field.getValue();
            }
            return admin.commands().eval(LuaScript.CLIENT_REGISTER.body(), ScriptOutputType.INTEGER,
                    new String[] {LockKeys.client(clientId)}, args);
        }
    }

    // ---- helpers

    private static String uniqueKey() {
        return "replies:" + UUID.randomUUID();
    }

    private static String uniqueClientId() {
        return "replies-client-" + UUID.randomUUID();
    }

    private static String since(String key) {
        return LockKeys.since(key);
    }

    /** Reader {@code field}'s lease key of hold {@code n}. */
    private static String lease(String key, String field, int n) {
        return LockKeys.readLeasePrefix(key, field) + ":" + n;
    }

    private void holdWith(String key, String field, int holds, long pttl) {
        admin.commands().hset(key, field, Integer.toString(holds));
        assertThat(admin.commands().pexpire(key, pttl)).isTrue();
    }

    /** {@code key} has a TTL, and the same as {@code other}'s up to the two reads' distance. */
    private void assertExpiresWith(String key, String other) {
        long otherPttl = admin.commands().pttl(other);
        long pttl = admin.commands().pttl(key);
        assertThat(otherPttl).as("%s expires", other).isPositive();
        assertThat(pttl).as("%s expires with %s", key, other).isCloseTo(otherPttl, within(SLACK_MILLIS));
    }

    private long redisMillis() {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    private Publishes watch(String name) {
        return new Publishes(name);
    }

    /**
     * A pattern subscription to every channel whose name contains {@code name}, recording each
     * message with its channel.
     */
    private final class Publishes implements AutoCloseable {
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final Map.Entry<String, String> marker;
        private final List<Map.Entry<String, String>> received = new ArrayList<>();

        Publishes(String name) {
            this.marker = Map.entry("marker:" + name, "marker-" + UUID.randomUUID());
            this.connection = subscriberClient.connectPubSub();
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    synchronized (received) {
                        received.add(Map.entry(channel, message));
                    }
                }
            });
            connection.sync().psubscribe("*" + name + "*"); // returns once Redis confirmed
        }

        /** Every (channel, message) published so far, in order (publishes a marker and waits for it). */
        List<Map.Entry<String, String>> soFar() {
            assertThat(admin.commands().publish(marker.getKey(), marker.getValue())).as("subscribers").isEqualTo(1L);
            await().atMost(Duration.ofSeconds(10)).until(() -> snapshot().contains(marker));
            List<Map.Entry<String, String>> messages = snapshot();
            return messages.subList(0, messages.lastIndexOf(marker)).stream()
                    .filter(m -> !m.getKey().equals(marker.getKey())).toList();
        }

        private List<Map.Entry<String, String>> snapshot() {
            synchronized (received) {
                return new ArrayList<>(received);
            }
        }

        @Override
        public void close() {
            connection.close();
        }
    }
}
