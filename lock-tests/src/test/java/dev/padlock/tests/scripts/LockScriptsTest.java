package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.internal.script.LuaScript;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Each Lua script of {@code lock-lua} run on its own with {@code EVAL} against a real Redis, no
 * Padlock client involved: the KEYS/ARGV/return contract of each file's header, the on-Redis
 * state it leaves, and what it publishes.
 *
 * <p>"Nothing published" is checked without sleeping: after the script, the test publishes a
 * marker on the same channel and waits for it; pub/sub keeps order on one connection, so whatever
 * the script published arrives before the marker.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockScriptsTest {
    private static final String MESSAGE = "0";
    private static final String OWNER = "client-a:1";
    private static final String OTHER = "client-b:7";
    private static final long LONG_LEASE = 60_000;
    /** How long a fair line lasts after the last attempt in it (fair_acquire's ARGV[7]). */
    private static final long FAIR_LINE_MILLIS = 2_000;
    private static final long SHORT_LEASE = 5_000;

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

    @Test
    void eachSha1IsWhatRedisComputes() {
        for (LuaScript script : LuaScript.values()) {
            assertThat(admin.commands().scriptLoad(script.body()))
                    .as("SHA1 of %s", script.file())
                    .isEqualTo(script.sha1());
        }
        String[] sha1s = Arrays.stream(LuaScript.values()).map(LuaScript::sha1).toArray(String[]::new);
        assertThat(admin.commands().scriptExists(sha1s)).containsOnly(true);
    }

    @Nested
    class Acquire {
        @Test
        void aFreeLockIsTakenWithHoldCountOneAndTheLease() {
            String key = uniqueKey();

            assertThat(acquire(key, LONG_LEASE, OWNER)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isBetween(LONG_LEASE - 10_000, LONG_LEASE);
        }

        @Test
        void aReentryCountsUpAndReArmsTheLease() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, SHORT_LEASE);

            assertThat(acquire(key, LONG_LEASE, OWNER)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "2"));
            assertThat(admin.commands().pttl(key)).as("re-armed to the new lease").isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aLockHeldByAnotherOwnerGivesItsPttlAndIsLeftAlone() {
            String key = uniqueKey();
            holdWith(key, OTHER, 3, SHORT_LEASE);

            Long ttl = acquire(key, LONG_LEASE, OWNER);

            assertThat(ttl).isNotNull().isBetween(1L, SHORT_LEASE);
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "3"));
            long pttl = admin.commands().pttl(key);
            assertThat(pttl).as("lease not touched").isBetween(1L, SHORT_LEASE).isLessThanOrEqualTo(ttl);
        }

        @Test
        void aLockHeldWithoutExpiryGivesMinusOne() {
            String key = uniqueKey();
            admin.commands().hset(key, OTHER, "1");

            assertThat(acquire(key, LONG_LEASE, OWNER)).isEqualTo(-1L);
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
            assertThat(admin.commands().pttl(key)).isEqualTo(-1L);
        }

        @Test
        void publishesNothing() {
            String key = uniqueKey();
            try (Subscriber subscriber = subscribe(key)) {
                assertThat(acquire(key, LONG_LEASE, OWNER)).isNull();
                assertThat(acquire(key, LONG_LEASE, OWNER)).isNull();
                assertThat(acquire(key, LONG_LEASE, OTHER)).isNotNull();
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }
    }

    /** "Since": when each holder got the lock, beside it in {@code padlock_since:{<name>}}. */
    @Nested
    class Since {
        /** Issue 26: a first hold is the three calls Redisson's format needs; its since comes later. */
        @Test
        void aFirstHoldWritesOnlyTheLock() {
            String key = uniqueKey();

            assertThat(claim(key, LONG_LEASE, OWNER)).isNull();
            assertThat(fencedAcquire(uniqueKey(), OWNER, "1").get(0)).isEqualTo(1L);

            assertThat(admin.commands().exists(sinceOf(key))).isZero();
        }

        @Test
        void aNoteWritesRedisTimeLessTheTimeHeldWithTheLocksTtlOnceAndAReentryKeepsIt() {
            String key = uniqueKey();
            assertThat(claim(key, LONG_LEASE, OWNER)).isNull();
            long before = redisMillis();

            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);
            long since = Long.parseLong(admin.commands().hget(sinceOf(key), OWNER));
            assertThat(since).isBetween(before - 1_000, redisMillis() - 1_000);
            // the lock's TTL rounded up to the next second
            assertThat(admin.commands().pttl(sinceOf(key))).isBetween(LONG_LEASE - 10_000, LONG_LEASE + 1_500);
            assertThat(noteSince(key, OWNER, 5_000)).as("noted already: kept").isZero();
            assertThat(admin.commands().hget(sinceOf(key), OWNER)).isEqualTo(Long.toString(since));

            admin.commands().pexpire(sinceOf(key), SHORT_LEASE);
            assertThat(acquire(key, LONG_LEASE, OWNER)).isNull();
            assertThat(admin.commands().hgetall(sinceOf(key))).as("kept").isEqualTo(Map.of(OWNER, Long.toString(since)));
            assertThat(admin.commands().pttl(sinceOf(key))).as("re-armed with the lock").isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aNoteForAnOwnerThatNoLongerHoldsWritesNothing() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, SHORT_LEASE);

            assertThat(noteSince(key, OWNER, 1_000)).isZero();
            assertThat(noteSince(uniqueKey(), OWNER, 1_000)).isZero();

            assertThat(admin.commands().exists(sinceOf(key))).isZero();
        }

        @Test
        void theLastReleaseDeletesItAndAnInnerOneReArmsIt() {
            String key = uniqueKey();
            assertThat(claim(key, SHORT_LEASE, OWNER)).isNull();
            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);
            assertThat(acquire(key, SHORT_LEASE, OWNER)).isNull();

            assertThat(release(key, LONG_LEASE, OWNER)).isZero();
            assertThat(admin.commands().pttl(sinceOf(key))).isGreaterThan(SHORT_LEASE);
            assertThat(release(key, 0, OWNER)).isEqualTo(1L);
            assertThat(admin.commands().exists(key, sinceOf(key))).isZero();
        }

        @Test
        void aHandOffKeepsTheEntryOfTheClientsFirstHolder() {
            // a hand-off stays inside one client: the entry it finds says when the client got the lock
            String key = uniqueKey();
            assertThat(claim(key, SHORT_LEASE, OWNER)).isNull();
            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);
            String since = admin.commands().hget(sinceOf(key), OWNER);

            assertThat(handOff(key, LONG_LEASE, OWNER, "client-a:2", 0)).isEqualTo(2L);

            assertThat(admin.commands().hgetall(sinceOf(key))).containsExactly(java.util.Map.entry(OWNER, since));
            assertThat(admin.commands().hkeys(key)).containsExactly("client-a:2");
        }

        @Test
        void aGiveBackRemovesTheEntryAndAForceReleaseTheHash() {
            String key = uniqueKey();
            assertThat(claim(key, LONG_LEASE, OWNER)).isNull();
            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);
            assertThat(abandon(key, OWNER)).isEqualTo(1L);
            assertThat(admin.commands().exists(key, sinceOf(key))).isZero();

            assertThat(fencedAcquire(key, OWNER, "1").get(0)).isEqualTo(1L);
            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);
            assertThat(admin.commands().hkeys(sinceOf(key))).containsExactly(OWNER);
            assertThat(forceRelease(key)).isEqualTo(1L);
            assertThat(admin.commands().exists(key, sinceOf(key))).isZero();
        }

        @Test
        void renewalsExtendItWithTheLock() {
            String key = uniqueKey();
            assertThat(claim(key, SHORT_LEASE, OWNER)).isNull();
            assertThat(noteSince(key, OWNER, 1_000)).isEqualTo(1L);

            List<Long> renewed = admin.commands().eval(LuaScript.LOCK_RENEW.body(), ScriptOutputType.MULTI,
                    new String[] {key, sinceOf(key)}, Long.toString(LONG_LEASE), OWNER);

            assertThat(renewed).containsExactly(1L);
            assertThat(admin.commands().pttl(sinceOf(key))).isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aRedissonHoldHasNone() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, SHORT_LEASE);

            assertThat(claim(key, LONG_LEASE, OWNER)).isNotNull();
            assertThat(admin.commands().exists(sinceOf(key))).isZero();
        }

        private Long noteSince(String key, String field, long heldForMillis) {
            return admin.commands().eval(LuaScript.LOCK_SINCE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, sinceOf(key)}, field, Long.toString(heldForMillis));
        }
    }

    @Nested
    class Release {
        @Test
        void aNonHolderGetsNilAndNothingChanges() {
            String key = uniqueKey();
            holdWith(key, OTHER, 2, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(release(key, LONG_LEASE, OWNER)).isNull();

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "2"));
                assertThat(admin.commands().pttl(key)).isBetween(1L, SHORT_LEASE);
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }

        @Test
        void aMissingLockGivesNilAndIsNotCreated() {
            String key = uniqueKey();
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(release(key, LONG_LEASE, OWNER)).isNull();

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }

        @Test
        void anInnerReleaseCountsDownAndReArmsAPositiveLease() {
            String key = uniqueKey();
            holdWith(key, OWNER, 2, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(release(key, LONG_LEASE, OWNER)).isZero();

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(admin.commands().pttl(key)).as("re-armed").isGreaterThan(SHORT_LEASE);
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }

        @Test
        void anInnerReleaseWithLeaseZeroLeavesTheTtlAlone() {
            String key = uniqueKey();
            holdWith(key, OWNER, 2, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(release(key, 0, OWNER)).isZero();

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(admin.commands().pttl(key)).as("untouched").isBetween(1L, SHORT_LEASE);
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }

        @Test
        void anInnerReleaseWithLeaseZeroKeepsNoExpiry() {
            String key = uniqueKey();
            admin.commands().hset(key, OWNER, "2");

            assertThat(release(key, 0, OWNER)).isZero();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isEqualTo(-1L);
        }

        @Test
        void theLastReleaseDeletesTheKeyAndPublishesZero() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(release(key, LONG_LEASE, OWNER)).as("1 + the one subscriber reached").isEqualTo(2L);

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(subscriber.messagesSoFar()).containsExactly(MESSAGE);
            }
        }

        @Test
        void theLastReleaseDeletesTheWholeHash() {
            // Only one owner can hold an exclusive lock; a stray second field still goes with the
            // key, as with Redisson's unlock script.
            String key = uniqueKey();
            holdWith(key, OWNER, 1, SHORT_LEASE);
            admin.commands().hset(key, OTHER, "1");

            assertThat(release(key, 0, OWNER)).as("1 + no subscriber").isEqualTo(1L);
            assertThat(admin.commands().exists(key)).isZero();
        }
    }

    @Nested
    class Renew {
        @Test
        void renewsExactlyTheLocksStillHeldByTheirOwner() {
            String held = uniqueKey();
            String heldByOther = uniqueKey();
            String missing = uniqueKey();
            String heldForever = uniqueKey();
            String fieldOfFourth = "client-a:4";
            holdWith(held, OWNER, 2, SHORT_LEASE);
            holdWith(heldByOther, OTHER, 1, SHORT_LEASE);
            admin.commands().hset(heldForever, fieldOfFourth, "1");

            List<Long> renewed = admin.commands().eval(LuaScript.LOCK_RENEW.body(), ScriptOutputType.MULTI,
                    new String[] {held, sinceOf(held), heldByOther, sinceOf(heldByOther), missing, sinceOf(missing),
                        heldForever, sinceOf(heldForever)},
                    Long.toString(LONG_LEASE), OWNER, OWNER, OWNER, fieldOfFourth);

            assertThat(renewed).containsExactly(1L, 0L, 0L, 1L);
            assertThat(admin.commands().pttl(held)).isGreaterThan(SHORT_LEASE);
            assertThat(admin.commands().hgetall(held)).as("hold count kept").isEqualTo(Map.of(OWNER, "2"));
            assertThat(admin.commands().pttl(heldByOther)).as("not extended").isBetween(1L, SHORT_LEASE);
            assertThat(admin.commands().hgetall(heldByOther)).isEqualTo(Map.of(OTHER, "1"));
            assertThat(admin.commands().exists(missing)).as("not created").isZero();
            assertThat(admin.commands().pttl(heldForever)).isBetween(LONG_LEASE - 10_000, LONG_LEASE);
        }

        @Test
        void anEmptyBatchGivesAnEmptyArray() {
            List<Long> renewed = admin.commands().eval(LuaScript.LOCK_RENEW.body(), ScriptOutputType.MULTI,
                    new String[0], Long.toString(LONG_LEASE));

            assertThat(renewed).isEmpty();
        }
    }

    @Nested
    class ForceRelease {
        @Test
        void anExistingLockIsDeletedWhoeverHoldsItAndZeroPublished() {
            String key = uniqueKey();
            holdWith(key, OTHER, 3, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(forceRelease(key)).isEqualTo(1L);

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(subscriber.messagesSoFar()).containsExactly(MESSAGE);
            }
        }

        @Test
        void aMissingLockGivesZeroAndPublishesNothing() {
            String key = uniqueKey();
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(forceRelease(key)).isZero();

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }
    }

    @Nested
    class Fair {
        private static final String GONE = "client-gone";
        private static final String CLIENT_C = "client-c";

        @Test
        void aFailedAttemptTakesOnePlaceAtTheTailAndAnAttemptInLineKeepsIt() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, LONG_LEASE);
            String place = OWNER + ":" + SHORT_LEASE + ":41";

            assertThat(fairAcquire(key, OWNER, "1", place)).isPositive();
            assertThat(fairAcquire(key, OWNER, "2", place)).isPositive();
            assertThat(fairAcquire(key, "client-c:2", "0", "")).as("one-shot").isPositive();

            assertThat(admin.commands().lrange(fairQueueOf(key), 0, -1)).containsExactly(place);
            admin.commands().del(fairQueueOf(key)); // its place lost (a DEL, a failover): taken again at the tail
            assertThat(fairAcquire(key, OWNER, "2", place)).isPositive();
            assertThat(admin.commands().lrange(fairQueueOf(key), 0, -1)).containsExactly(place);
        }

        /** Issue 13: the last release passes the lock to the first place, in the same call, with one message. */
        @Test
        void theLastReleaseGrantsTheFirstListeningPlaceAndPublishesOnlyOnItsGrantChannel() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, SHORT_LEASE);
            admin.commands().rpush(fairQueueOf(key), OWNER + ":" + LONG_LEASE + ":41", "client-c:2:" + LONG_LEASE + ":42");
            try (Subscriber unlock = subscribe(key); Subscriber grantA = subscribeTo(grantOf(key, "client-a"))) {

                assertThat(fairRelease(key, OTHER)).isEqualTo(-1L);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(admin.commands().pttl(key)).as("the lease the place asked for")
                        .isBetween(LONG_LEASE - 5_000, LONG_LEASE);
                assertThat(grantA.messagesSoFar()).containsExactly("f:1:41:" + key);
                assertThat(unlock.messagesSoFar()).isEmpty();
                assertThat(admin.commands().lrange(fairQueueOf(key), 0, -1)).containsExactly("client-c:2:" + LONG_LEASE + ":42");
                assertThat(admin.commands().exists(sinceOf(key))).as("the releaser's since went with it").isZero();
            }
        }

        @Test
        void aPlaceWhoseClientNobodyListensForIsPassedOverAndWithNobodyLeftTheLockIsDeleted() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, LONG_LEASE);
            admin.commands().rpush(fairQueueOf(key), GONE + ":1:" + SHORT_LEASE + ":5", "malformed",
                    CLIENT_C + ":2:" + SHORT_LEASE + ":6");
            try (Subscriber grantC = subscribeTo(grantOf(key, CLIENT_C))) {
                assertThat(fairRelease(key, OTHER)).isEqualTo(-1L);
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(CLIENT_C + ":2", "1"));
                assertThat(grantC.messagesSoFar()).containsExactly("f:2:6:" + key);
            }
            // nobody listens for client-c any more: its next release finds nobody alive in line
            admin.commands().rpush(fairQueueOf(key), GONE + ":3:" + SHORT_LEASE + ":7");
            assertThat(fairRelease(key, CLIENT_C + ":2")).isEqualTo(1L);
            assertThat(admin.commands().exists(key, fairQueueOf(key), sinceOf(key))).isZero();
        }

        @Test
        void anAttemptInLineThatFindsItsFieldHoldsOnceWithItsOwnLease() {
            String key = uniqueKey();
            String place = OWNER + ":" + SHORT_LEASE + ":41";
            holdWith(key, OTHER, 1, LONG_LEASE);
            assertThat(fairAcquire(key, OWNER, "1", place)).isPositive();
            fairRelease(key, OTHER); // nobody listens for client-a: passed over, the lock is deleted
            assertThat(admin.commands().exists(key)).isZero();
            admin.commands().hset(key, OWNER, "1"); // a grant, as a release where counts cannot be told makes it
            admin.commands().pexpire(key, 1_000);

            assertThat(fairAcquire(key, OWNER, "2", place)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aFreeLockGoesToTheFirstLivePlaceAndAnAttemptBehindItWaits() {
            String key = uniqueKey();
            String mine = "client-c:2:" + SHORT_LEASE + ":9";
            admin.commands().rpush(fairQueueOf(key), GONE + ":1:" + SHORT_LEASE + ":5", OWNER + ":" + SHORT_LEASE + ":41", mine);
            try (Subscriber grantA = subscribeTo(grantOf(key, "client-a"))) {

                assertThat(fairAcquire(key, "client-c:2", "2", mine)).as("the grant lease, to wait").isEqualTo(SHORT_LEASE);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
                assertThat(grantA.messagesSoFar()).containsExactly("f:1:41:" + key);
                assertThat(admin.commands().lrange(fairQueueOf(key), 0, -1)).containsExactly(mine);
            }
            admin.commands().del(key);
            assertThat(fairAcquire(key, "client-c:2", "2", mine)).as("first in line, the lock free").isNull();
            assertThat(admin.commands().exists(fairQueueOf(key))).isZero();
            assertThat(admin.commands().hkeys(sinceOf(key))).containsExactly("client-c:2");
        }

        @Test
        void aOneShotAttemptNeitherJoinsNorJumpsTheLine() {
            String key = uniqueKey();
            String place = OWNER + ":" + SHORT_LEASE + ":41";
            admin.commands().rpush(fairQueueOf(key), place);
            try (Subscriber grantA = subscribeTo(grantOf(key, "client-a"))) {
                assertThat(fairAcquire(key, "client-c:2", "0", "")).isPositive();
                assertThat(admin.commands().hgetall(key)).as("granted to the first in line").isEqualTo(Map.of(OWNER, "1"));
                assertThat(admin.commands().exists(fairQueueOf(key))).isZero();
            }
        }

        @Test
        void aWaiterThatLeavesAsAGrantReachesItKeepsTheGrantWithItsOwnLease() {
            String key = uniqueKey();
            String place = OWNER + ":" + SHORT_LEASE + ":41";
            String next = "client-c:2:" + SHORT_LEASE + ":42";
            holdWith(key, OTHER, 1, LONG_LEASE);
            admin.commands().rpush(fairQueueOf(key), place, next);
            try (Subscriber grantA = subscribeTo(grantOf(key, "client-a"))) {
                assertThat(fairRelease(key, OTHER)).isEqualTo(-1L); // granted to client-a:1, which is giving up
            }

            assertThat(fairLeave(key, OWNER, place)).isEqualTo(2L);

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE);
            assertThat(admin.commands().lrange(fairQueueOf(key), 0, -1)).containsExactly(next);
            admin.commands().del(key);
            assertThat(fairLeave(key, "client-c:2", next)).as("left").isEqualTo(1L);
            assertThat(fairLeave(key, "client-c:2", next)).as("gone already").isZero();
            assertThat(admin.commands().exists(fairQueueOf(key))).isZero();
        }

        /**
         * Issue 9, defect 9 (on today's line): a force unlock wakes every waiting client on the unlock
         * channel, and the first attempt that finds the lock free passes over waiters that are gone.
         */
        @Test
        void aForceReleaseWakesTheWaitersAndTheirFirstAttemptPassesOverThoseThatAreGone() {
            String key = uniqueKey();
            String mine = "client-c:2:" + SHORT_LEASE + ":9";
            holdWith(key, OTHER, 2, SHORT_LEASE);
            admin.commands().rpush(fairQueueOf(key), GONE + ":1:" + SHORT_LEASE + ":5", mine);
            admin.commands().hset(sinceOf(key), OTHER, "1800000000000");
            admin.commands().pexpire(sinceOf(key), SHORT_LEASE);
            try (Subscriber unlock = subscribe(key)) {
                assertThat(fairForceRelease(key)).isEqualTo(1L);
                assertThat(admin.commands().exists(sinceOf(key))).as("the holders' since goes with the lock").isZero();
                assertThat(unlock.messagesSoFar()).containsExactly(MESSAGE);
                assertThat(fairForceRelease(key)).isZero();
            }
            assertThat(admin.commands().exists(key)).isZero();

            assertThat(fairAcquire(key, "client-c:2", "2", mine)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("client-c:2", "1"));
            assertThat(admin.commands().exists(fairQueueOf(key))).isZero();
        }
    }

    @Nested
    class ReadLocked {
        /** Issue 14: the writer's own read hold keeps the read side locked, as Redisson answers. */
        @Test
        void readModeOrTheWriterAlsoReadingIsLockedAndNothingChanges() {
            String key = uniqueKey();
            assertThat(readLocked(key)).as("free").isZero();
            admin.commands().hset(key, Map.of("mode", "write", OWNER + ":write", "1"));
            assertThat(readLocked(key)).as("write only").isZero();
            admin.commands().hset(key, OWNER, "1");
            assertThat(readLocked(key)).as("the writer also reads").isEqualTo(1L);
            admin.commands().hdel(key, OWNER + ":write");
            admin.commands().hset(key, "mode", "read");
            assertThat(readLocked(key)).as("read mode").isEqualTo(1L);
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("mode", "read", OWNER, "1"));
            assertThat(admin.commands().pttl(key)).as("no expiry set").isEqualTo(-1L);
            admin.commands().del(key);
        }
    }

    /** The plain lock's line of waiting clients and the grants of lock_release (issue 13). */
    @Nested
    class Line {
        private static final String CLIENT_A = "client-a";
        private static final String CLIENT_B = "client-b";
        private static final String CLIENT_C = "client-c";

        @Test
        void aFailedClaimPutsItsClientInLineOnceAndRefreshesItsPlace() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, LONG_LEASE);

            assertThat(claimInLine(key, CLIENT_B, "17", "1", false)).isPositive();
            assertThat(claimInLine(key, CLIENT_B, "18", "2", false)).isPositive();

            assertThat(admin.commands().lrange(lineOf(key), 0, -1)).containsExactly(CLIENT_B);
            assertThat(admin.commands().get(placeOf(key, CLIENT_B))).isEqualTo("18:" + SHORT_LEASE + ":2");
            assertThat(admin.commands().pttl(placeOf(key, CLIENT_B))).isBetween(1L, 2 * SHORT_LEASE);
            assertThat(admin.commands().pttl(lineOf(key))).isBetween(1L, 2 * SHORT_LEASE);
        }

        @Test
        void aClaimThatSucceedsAfterGettingInLineLeavesIt() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, LONG_LEASE);
            assertThat(claimInLine(key, CLIENT_B, "17", "1", false)).isPositive();
            admin.commands().del(key);

            assertThat(claimInLine(key, CLIENT_B, "17", "1", true)).isNull();

            assertThat(admin.commands().exists(lineOf(key), placeOf(key, CLIENT_B))).isZero();
        }

        @Test
        void theLastReleaseGrantsTheFirstListeningClientInLineAndPublishesOnlyThere() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, SHORT_LEASE);
            inLine(key, CLIENT_B, "7:" + LONG_LEASE + ":41");
            inLine(key, CLIENT_C, "9:" + LONG_LEASE + ":42");
            try (Subscriber unlock = subscribe(key); Subscriber grantB = subscribeTo(grantOf(key, CLIENT_B))) {

                assertThat(releaseInLine(key, OWNER, "")).isEqualTo(-1L);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(CLIENT_B + ":7", "1"));
                assertThat(admin.commands().pttl(key)).as("the lease the place asked for")
                        .isBetween(LONG_LEASE - 5_000, LONG_LEASE);
                assertThat(admin.commands().hkeys(sinceOf(key))).containsExactly(CLIENT_B + ":7");
                assertThat(grantB.messagesSoFar()).containsExactly("7:41:" + key);
                assertThat(unlock.messagesSoFar()).isEmpty();
                assertThat(admin.commands().lrange(lineOf(key), 0, -1)).containsExactly(CLIENT_C);
                assertThat(admin.commands().exists(placeOf(key, CLIENT_B))).isZero();
            }
        }

        /** Issue 21: a Redisson waiter parks until the TTL it saw; a shorter grant must not strand it. */
        @Test
        void aGrantWithALeaseShorterThanTheLocksTtlAlsoPublishesOnTheUnlockChannel() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            inLine(key, CLIENT_B, "7:" + SHORT_LEASE + ":41");
            try (Subscriber unlock = subscribe(key); Subscriber grantB = subscribeTo(grantOf(key, CLIENT_B))) {

                assertThat(releaseInLine(key, OWNER, "")).isEqualTo(-1L);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(CLIENT_B + ":7", "1"));
                assertThat(admin.commands().pttl(key)).isBetween(1L, SHORT_LEASE);
                assertThat(grantB.messagesSoFar()).containsExactly("7:41:" + key);
                assertThat(unlock.messagesSoFar()).containsExactly(MESSAGE);
            }
        }

        @Test
        void aClientNobodyListensForOrWhosePlaceExpiredIsPassedOver() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            inLine(key, CLIENT_B, "7:" + SHORT_LEASE + ":41"); // nobody listens on its grant channel
            admin.commands().rpush(lineOf(key), "client-expired"); // in line, its place gone
            inLine(key, CLIENT_C, "9:" + SHORT_LEASE + ":42");
            try (Subscriber unlock = subscribe(key); Subscriber grantC = subscribeTo(grantOf(key, CLIENT_C))) {

                assertThat(releaseInLine(key, OWNER, "")).isEqualTo(-1L);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(CLIENT_C + ":9", "1"));
                assertThat(grantC.messagesSoFar()).containsExactly("9:42:" + key);
                assertThat(admin.commands().exists(lineOf(key))).isZero();
            }
        }

        @Test
        void withNobodyToGrantTheLastReleaseDeletesAndPublishesAsBefore() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            inLine(key, CLIENT_A, "3:" + SHORT_LEASE + ":40"); // the releasing client's own place is skipped
            try (Subscriber unlock = subscribe(key)) {

                assertThat(releaseInLine(key, OWNER, "5:" + SHORT_LEASE + ":43")).isEqualTo(2L);

                assertThat(admin.commands().exists(key, sinceOf(key))).isZero();
                assertThat(unlock.messagesSoFar()).containsExactly(MESSAGE);
                assertThat(admin.commands().exists(lineOf(key))).as("not put back: nobody else waits").isZero();
            }
        }

        /**
         * Issue 26: a client in line listens on the unlock channel from before its place, so with
         * nobody listening there, the last release deletes the lock and touches no line key.
         */
        @Test
        void withNobodyListeningTheLastReleaseLooksIntoNoLine() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            inLine(key, CLIENT_B, "7:" + SHORT_LEASE + ":41"); // a place whose client stopped listening

            assertThat(releaseInLine(key, OWNER, "")).isEqualTo(1L);

            assertThat(admin.commands().exists(key, sinceOf(key))).isZero();
            assertThat(admin.commands().lrange(lineOf(key), 0, -1)).as("the line untouched").containsExactly(CLIENT_B);
            assertThat(admin.commands().get(placeOf(key, CLIENT_B))).isEqualTo("7:" + SHORT_LEASE + ":41");
        }

        @Test
        void aGrantingReleasePutsItsOwnClientBackInLineAtTheTail() {
            String key = uniqueKey();
            holdWith(key, CLIENT_A + ":1", 1, LONG_LEASE);
            inLine(key, CLIENT_B, "7:" + SHORT_LEASE + ":41");
            inLine(key, CLIENT_C, "9:" + SHORT_LEASE + ":42");
            try (Subscriber unlock = subscribe(key); Subscriber grantB = subscribeTo(grantOf(key, CLIENT_B))) {

                assertThat(releaseInLine(key, CLIENT_A + ":1", "5:" + SHORT_LEASE + ":43")).isEqualTo(-1L);

                assertThat(admin.commands().lrange(lineOf(key), 0, -1)).containsExactly(CLIENT_C, CLIENT_A);
                assertThat(admin.commands().get(placeOf(key, CLIENT_A))).isEqualTo("5:" + SHORT_LEASE + ":43");
            }
        }

        @Test
        void leavingTakesOnlyThePlaceOfTheOwnerItNames() {
            String key = uniqueKey();
            inLine(key, CLIENT_B, "7:" + SHORT_LEASE + ":41");
            String[] keys = {lineOf(key), placeOf(key, CLIENT_B)};

            assertThat(admin.commands().<Long>eval(LuaScript.LOCK_LEAVE.body(), ScriptOutputType.INTEGER, keys,
                    CLIENT_B, "8")).isZero();
            assertThat(admin.commands().<Long>eval(LuaScript.LOCK_LEAVE.body(), ScriptOutputType.INTEGER, keys,
                    CLIENT_B, "7")).isEqualTo(1L);

            assertThat(admin.commands().exists(keys)).isZero();
        }

        private Long claimInLine(String key, String clientId, String threadId, String nonce, boolean inLine) {
            return admin.commands().eval(LuaScript.LOCK_CLAIM.body(), ScriptOutputType.INTEGER,
                    new String[] {key, lineOf(key), placeOf(key, clientId)}, Long.toString(LONG_LEASE),
                    clientId + ":" + threadId, threadId + ":" + SHORT_LEASE + ":" + nonce,
                    Long.toString(2 * SHORT_LEASE), clientId, inLine ? "1" : "0");
        }

        /** The client releasing is {@code field} up to its last colon. */
        private Long releaseInLine(String key, String field, String putBack) {
            String clientId = field.substring(0, field.lastIndexOf(':'));
            return admin.commands().eval(LuaScript.LOCK_RELEASE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, channelOf(key), sinceOf(key), lineOf(key), placeOf(key, clientId)}, MESSAGE,
                    "0", field, "publish", putBack, Long.toString(2 * SHORT_LEASE));
        }

        private void inLine(String key, String clientId, String place) {
            admin.commands().set(placeOf(key, clientId), place);
            admin.commands().rpush(lineOf(key), clientId);
        }

        private static String lineOf(String key) {
            return "padlock_queue:{" + key + "}";
        }

        private static String placeOf(String key, String clientId) {
            return "padlock_waiter:{" + key + "}:" + clientId;
        }

    }

    @Nested
    class HandOff {
        @Test
        void theLastHoldMovesToTheSuccessorWithItsLeaseAndNothingIsPublished() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, SHORT_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(handOff(key, LONG_LEASE, OWNER, OTHER, 0)).isEqualTo(2L);

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
                assertThat(admin.commands().pttl(key)).isGreaterThan(SHORT_LEASE).isLessThanOrEqualTo(LONG_LEASE);
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
        }

        @Test
        void aHolderWithMoreHoldsDropsOneAndKeepsTheLock() {
            String key = uniqueKey();
            holdWith(key, OWNER, 2, SHORT_LEASE);

            assertThat(handOff(key, LONG_LEASE, OWNER, OTHER, 0)).isZero();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).as("0 keeps the TTL").isLessThanOrEqualTo(SHORT_LEASE);
            holdWith(key, OWNER, 2, SHORT_LEASE);
            assertThat(handOff(key, LONG_LEASE, OWNER, OTHER, LONG_LEASE)).isZero();
            assertThat(admin.commands().pttl(key)).as("re-armed").isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aNonHolderChangesNothing() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, SHORT_LEASE);

            assertThat(handOff(key, LONG_LEASE, OWNER, "client-a:2", 0)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
            assertThat(handOff(uniqueKey(), LONG_LEASE, OWNER, OTHER, 0)).as("missing lock").isNull();
        }
    }

    @Nested
    class Claim {
        @Test
        void aFreeLockIsTakenOnceAndAClaimSentAgainStillHoldsOnce() {
            String key = uniqueKey();

            assertThat(claim(key, LONG_LEASE, OWNER)).isNull();
            assertThat(claim(key, LONG_LEASE, OWNER)).as("the same claim again").isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).isBetween(LONG_LEASE - 10_000, LONG_LEASE);
        }

        @Test
        void aStrayHoldOfTheOwnerIsTakenOverWithOneHold() {
            String key = uniqueKey();
            holdWith(key, OWNER, 3, SHORT_LEASE);

            assertThat(claim(key, LONG_LEASE, OWNER)).isNull();

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "1"));
            assertThat(admin.commands().pttl(key)).as("the new lease").isGreaterThan(SHORT_LEASE);
        }

        @Test
        void aLockHeldByAnotherOwnerIsRefusedWithItsTtl() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, SHORT_LEASE);

            assertThat(claim(key, LONG_LEASE, OWNER)).isBetween(1L, SHORT_LEASE);

            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
        }

        /**
         * Regression (soak, seed 7): a fenced claim that found its owner's field (left by an unlock
         * that could not be confirmed) returned the counter's value, the token last handed out,
         * possibly to another owner: the same token twice.
         */
        @Test
        void aFencedClaimThatFindsItsOwnersFieldGetsANewToken() {
            String key = uniqueKey();
            assertThat(fencedAcquire(key, OTHER, null).get(0)).isEqualTo(1L);
            long othersToken = fencedAcquire(key, OTHER, null).get(1);
            admin.commands().del(key);
            holdWith(key, OWNER, 1, SHORT_LEASE); // a plain hold whose unlock was not confirmed

            List<Long> claimed = fencedAcquire(key, OWNER, "1");
            List<Long> again = fencedAcquire(key, OWNER, "1");
            List<Long> reentry = fencedAcquire(key, OWNER, null);

            assertThat(claimed.get(0)).isEqualTo(1L);
            assertThat(claimed.get(1)).isGreaterThan(othersToken);
            assertThat(again.get(1)).as("a claim sent again: a new token, one hold").isGreaterThan(claimed.get(1));
            assertThat(reentry.get(1)).as("a re-entry keeps the token").isEqualTo(again.get(1));
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OWNER, "2"));
        }

        /** A fenced re-entry raises the lock's and the holders' since's TTL to its lease (issue 37). */
        @Test
        void aFencedReentryRaisesTheLockAndItsSinceToItsLease() {
            String key = uniqueKey();
            assertThat(fencedAcquire(key, OWNER, "1").get(0)).isEqualTo(1L);
            admin.commands().pexpire(key, 20_000);
            admin.commands().hset(sinceOf(key), OWNER, "1800000000000");
            admin.commands().pexpire(sinceOf(key), 20_000);

            assertThat(fencedAcquire(key, OWNER, null).get(0)).isEqualTo(1L);

            assertThat(admin.commands().pttl(key)).isGreaterThan(30_000L);
            assertThat(admin.commands().pttl(sinceOf(key))).as("the since lives as long as the lock")
                    .isGreaterThan(30_000L);
        }
    }

    @Nested
    class Abandon {
        @Test
        void theOwnersFieldGoesAndTheFreedLockWakesWaiters() {
            String key = uniqueKey();
            holdWith(key, OWNER, 1, LONG_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(abandon(key, OWNER)).isEqualTo(1L);

                assertThat(admin.commands().exists(key)).isZero();
                assertThat(subscriber.messagesSoFar()).containsExactly(MESSAGE);
            }
        }

        @Test
        void anotherOwnersLockIsLeftAlone() {
            String key = uniqueKey();
            holdWith(key, OTHER, 1, LONG_LEASE);
            try (Subscriber subscriber = subscribe(key)) {

                assertThat(abandon(key, OWNER)).isZero();

                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of(OTHER, "1"));
                assertThat(subscriber.messagesSoFar()).isEmpty();
            }
            assertThat(abandon(uniqueKey(), OWNER)).as("missing lock").isZero();
        }
    }

    // ---- helpers

    private static String uniqueKey() {
        return "scripts:" + UUID.randomUUID();
    }

    /** The unlock channel of a name without braces, as the contract spells it. */
    private static String channelOf(String key) {
        return "redisson_lock__channel:{" + key + "}";
    }

    /** The holders' since of a name without braces: {@code padlock_since:{<name>}}. */
    private static String sinceOf(String key) {
        return "padlock_since:{" + key + "}";
    }

    private void holdWith(String key, String field, int holds, long pttl) {
        admin.commands().hset(key, field, Integer.toString(holds));
        assertThat(admin.commands().pexpire(key, pttl)).isTrue();
    }

    private Long acquire(String key, long leaseMillis, String field) {
        return admin.commands().eval(LuaScript.LOCK_ACQUIRE.body(), ScriptOutputType.INTEGER,
                new String[] {key, sinceOf(key)}, Long.toString(leaseMillis), field);
    }

    private Long claim(String key, long leaseMillis, String field) {
        return admin.commands().eval(LuaScript.LOCK_CLAIM.body(), ScriptOutputType.INTEGER,
                new String[] {key}, Long.toString(leaseMillis), field);
    }

    private Long abandon(String key, String field) {
        return admin.commands().eval(LuaScript.LOCK_ABANDON.body(), ScriptOutputType.INTEGER,
                new String[] {key, channelOf(key), sinceOf(key)}, MESSAGE, field, "publish");
    }

    /** fenced_acquire with a long lease; {@code claim} "1" for a claim, null for a plain acquire. */
    private List<Long> fencedAcquire(String key, String field, String claim) {
        String[] args = claim == null ? new String[] {Long.toString(LONG_LEASE), field}
                : new String[] {Long.toString(LONG_LEASE), field, claim};
        return admin.commands().eval(LuaScript.FENCED_ACQUIRE.body(), ScriptOutputType.MULTI,
                new String[] {key, "redisson_lock_token:{" + key + "}", sinceOf(key)}, args);
    }

    private Long release(String key, long rearmMillis, String field) {
        return admin.commands().eval(LuaScript.LOCK_RELEASE.body(), ScriptOutputType.INTEGER,
                new String[] {key, channelOf(key), sinceOf(key)}, MESSAGE, Long.toString(rearmMillis), field, "publish");
    }

    private Long handOff(String key, long leaseMillis, String from, String to, long rearmMillis) {
        return admin.commands().eval(LuaScript.LOCK_HANDOFF.body(), ScriptOutputType.INTEGER,
                new String[] {key, sinceOf(key)}, Long.toString(leaseMillis), from, to, Long.toString(rearmMillis));
    }

    private Long forceRelease(String key) {
        return admin.commands().eval(LuaScript.LOCK_FORCE_RELEASE.body(), ScriptOutputType.INTEGER,
                new String[] {key, channelOf(key), sinceOf(key)}, MESSAGE, "publish");
    }

    private Subscriber subscribe(String key) {
        return new Subscriber(subscriberClient.connectPubSub(), channelOf(key));
    }

    private Subscriber subscribeTo(String channel) {
        return new Subscriber(subscriberClient.connectPubSub(), channel);
    }

    private static String grantOf(String key, String clientId) {
        return "padlock_grant:{" + key + "}:" + clientId;
    }

    private static String fairQueueOf(String key) {
        return "padlock_fair_queue:{" + key + "}";
    }

    private static String redissonFairQueueOf(String key) {
        return "redisson_lock_queue:{" + key + "}";
    }

    private long redisMillis() {
        List<String> time = admin.commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    private Long readLocked(String key) {
        return admin.commands().eval(LuaScript.RW_READ_LOCKED.body(), ScriptOutputType.INTEGER, new String[] {key});
    }

    private Long fairForceRelease(String key) {
        return admin.commands().eval(LuaScript.FAIR_FORCE_RELEASE.body(), ScriptOutputType.INTEGER,
                new String[] {key, sinceOf(key), channelOf(key), redissonFairQueueOf(key),
                        "redisson_lock_timeout:{" + key + "}"}, MESSAGE, "publish");
    }

    /** fair_acquire with a long lease: {@code mode} 0 one-shot, 1 take {@code place}, 2 in line with it. */
    private Long fairAcquire(String key, String field, String mode, String place) {
        return admin.commands().eval(LuaScript.FAIR_ACQUIRE.body(), ScriptOutputType.INTEGER,
                new String[] {key, fairQueueOf(key), sinceOf(key)}, Long.toString(LONG_LEASE), field, mode, place,
                "publish", "1", Long.toString(FAIR_LINE_MILLIS));
    }

    private Long fairRelease(String key, String field) {
        return admin.commands().eval(LuaScript.FAIR_RELEASE.body(), ScriptOutputType.INTEGER,
                new String[] {key, fairQueueOf(key), sinceOf(key), redissonFairQueueOf(key), channelOf(key),
                        "redisson_lock_timeout:{" + key + "}"}, "0", field,
                "publish", "1");
    }

    private Long fairLeave(String key, String field, String place) {
        return admin.commands().eval(LuaScript.FAIR_LEAVE.body(), ScriptOutputType.INTEGER,
                new String[] {key, fairQueueOf(key), sinceOf(key)}, field, place, Long.toString(LONG_LEASE));
    }

    /**
     * Issue 13: the read-write lock's writers' line, the readers' yield, the readers' hall and its
     * grants, and wake-ups that reach only who can get in.
     */
    @Nested
    class ReadWriteLine {
        private static final String READER = OTHER;
        private static final String READER_C = "client-c:3";
        private static final String WRITER = OWNER + ":write";
        private static final String WRITER_C = "client-c:2:write";
        private static final String LINE_MILLIS = "6000";
        /** A reader's place in the hall: a 6,000 ms grant lease, nonce 9. */
        private static final String PLACE = "6000:9";

        @Test
        void aWriterThatWillWaitTakesOnePlaceWithADeadlineAndAOneShotTakesNone() {
            String key = uniqueKey();
            assertThat(readAcquire(key, READER)).isNull();
            long before = redisMillis();

            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isPositive();
            assertThat(writeAcquire(key, WRITER, "2", LINE_MILLIS)).as("an attempt in line keeps its place").isPositive();
            assertThat(writeAcquire(key, WRITER_C, "0", LINE_MILLIS)).as("one-shot").isPositive();

            assertThat(admin.commands().lrange(LockKeys.readWriteLine(key), 0, -1)).containsExactly(place(WRITER));
            assertThat(admin.commands().zscore(LockKeys.readWriteDeadlines(key), place(WRITER)))
                    .isBetween(before + 6000.0, redisMillis() + 6000.0);
            assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("mode", "read", READER, "1"));
        }

        @Test
        void aNewReaderYieldsToALiveWriterInLineButAReEntryAndADowngradeDoNot() {
            String key = uniqueKey();
            assertThat(readAcquire(key, READER)).isNull();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isPositive();

            assertThat(admin.commands().get(LockKeys.readWriteGate(key))).as("the gate is closed from now")
                    .isNotNull();
            assertThat(readAcquire(key, READER_C)).as("a new reader waits at most a line deadline")
                    .isBetween(1L, 6000L);
            assertThat(admin.commands().hexists(key, READER_C)).isFalse();
            assertThat(admin.commands().exists(LockKeys.readWriteReaders(key))).as("no place without one asked")
                    .isZero();
            assertThat(readAcquire(key, READER_C, "1", PLACE)).isBetween(1L, 6000L);
            assertThat(admin.commands().hgetall(LockKeys.readWriteReaders(key))).as("its place in the hall")
                    .isEqualTo(Map.of(READER_C, PLACE));
            assertThat(admin.commands().pttl(LockKeys.readWriteReaders(key))).isBetween(1L, 6000L);
            assertThat(readAcquire(key, READER)).as("a re-entry").isNull();
            assertThat(admin.commands().hget(key, READER)).isEqualTo("2");
        }

        @Test
        void anUpgradeIsRefusedAndTakesNoPlace() {
            String key = uniqueKey();
            assertThat(readAcquire(key, OWNER)).isNull();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isEqualTo(-3L);
            assertThat(admin.commands().exists(LockKeys.readWriteLine(key))).isZero();
        }

        @Test
        void theLastReadReleaseGrantsTheLockToTheFirstWriterWhoseClientHearsIt() {
            String key = uniqueKey();
            assertThat(readAcquire(key, READER)).isNull();
            assertThat(readAcquire(key, READER_C)).isNull();
            assertThat(writeAcquire(key, "client-d:4:write", "1", LINE_MILLIS)).as("its client is gone").isPositive();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isPositive();
            assertThat(writeAcquire(key, WRITER_C, "1", LINE_MILLIS)).isPositive();
            try (Subscriber shared = subscribeTo(LockKeys.readWriteChannel(key));
                    Subscriber first = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-a");
                    Subscriber second = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-c")) {

                assertThat(readRelease(key, READER)).as("another reader holds").isEqualTo(1L);
                assertThat(first.messagesSoFar()).isEmpty();
                assertThat(readRelease(key, READER_C)).isEqualTo(1L);

                assertThat(admin.commands().hgetall(key)).as("granted, the gone writer passed over")
                        .isEqualTo(Map.of("mode", "write", WRITER, "1"));
                assertThat(admin.commands().pttl(key)).as("the lease its place asks for").isBetween(1L, 6000L);
                assertThat(admin.commands().hexists(sinceOf(key), WRITER)).isTrue();
                assertThat(first.messagesSoFar()).containsExactly("w:1:1:" + key);
                assertThat(second.messagesSoFar()).isEmpty();
                assertThat(shared.messagesSoFar()).as("a grant shorter than the lock's TTL: Redisson's waiters look again")
                        .containsExactly("1");
                assertThat(admin.commands().lrange(LockKeys.readWriteLine(key), 0, -1)).containsExactly(place(WRITER_C));

                assertThat(writeAcquire(key, WRITER, "2", LINE_MILLIS)).as("the grant found by an attempt").isNull();
                assertThat(admin.commands().hget(key, WRITER)).as("held once").isEqualTo("1");
                assertThat(admin.commands().pttl(key)).isGreaterThan(6000L);
            }
        }

        @Test
        void aWriteReleaseGrantsTheReadersInTheHallBeforeTheNextWriterAndTheLastOfThemGrantsIt() {
            String key = uniqueKey();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isNull();
            assertThat(readAcquire(key, READER, "1", PLACE)).as("written: refused").isPositive();
            assertThat(readAcquire(key, READER_C, "1", "6000:8")).isPositive();
            assertThat(writeAcquire(key, WRITER_C, "1", LINE_MILLIS)).isPositive();
            try (Subscriber shared = subscribeTo(LockKeys.readWriteChannel(key));
                    Subscriber next = subscribeTo(LockKeys.readWriteWriterChannel(key, WRITER_C));
                    Subscriber grants = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-b")) {
                // client-c does not listen for grants yet: gone, passed over

                assertThat(writeRelease(key, WRITER)).as("granted to readers, writers in line").isEqualTo(-1L);

                assertThat(grants.messagesSoFar()).containsExactly("r:7:9:" + key);
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("mode", "read", READER, "1"));
                assertThat(admin.commands().pttl(leasePrefix(key, READER) + ":1")).as("the lease its place asks for")
                        .isBetween(1L, 6000L);
                assertThat(admin.commands().pttl(key)).isBetween(1L, 6000L);
                assertThat(admin.commands().exists(LockKeys.readWriteReaders(key))).as("the hall is empty").isZero();
                assertThat(shared.messagesSoFar()).as("Redisson's readers may join the granted ones")
                        .containsExactly("1");
                assertThat(next.messagesSoFar()).isEmpty();
                assertThat(admin.commands().pttl(LockKeys.readWriteTurn(key))).as("the readers' turn")
                        .isBetween(1L, 5000L);
                assertThat(readAcquire(key, "client-d:1")).as("a new reader joins in the turn").isNull();
                assertThat(writeAcquire(key, WRITER_C, "2", LINE_MILLIS)).as("the writer waits").isPositive();
                assertThat(readRelease(key, "client-d:1")).isEqualTo(1L);
                admin.commands().del(LockKeys.readWriteTurn(key)); // the turn is over
                assertThat(readAcquire(key, "client-d:1")).as("a new reader yields to the writer again").isPositive();

                assertThat(readAcquire(key, READER, "2", PLACE)).as("the grant found by an attempt").isNull();
                assertThat(admin.commands().hget(key, READER)).as("held once").isEqualTo("1");
                assertThat(admin.commands().pttl(leasePrefix(key, READER) + ":1")).isGreaterThan(6000L);

                try (Subscriber nextGrant = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-c")) {
                    assertThat(readRelease(key, READER)).isEqualTo(1L);
                    assertThat(nextGrant.messagesSoFar()).containsExactly("w:2:1:" + key);
                }
                assertThat(admin.commands().hgetall(key)).isEqualTo(Map.of("mode", "write", WRITER_C, "1"));
                assertThat(next.messagesSoFar()).as("a grant, not a wake-up").isEmpty();
                assertThat(writeAcquire(key, WRITER_C, "2", LINE_MILLIS)).isNull();
            }
        }

        @Test
        void aReaderLeavingTheHallGoesAndOneThatWasGrantedMeanwhileKeepsItsGrant() {
            String key = uniqueKey();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isNull();
            assertThat(readAcquire(key, READER, "1", PLACE)).isPositive();
            assertThat(readLeave(key, READER, PLACE)).isOne();
            assertThat(admin.commands().exists(LockKeys.readWriteReaders(key))).isZero();
            assertThat(readLeave(key, READER, PLACE)).isZero();

            assertThat(readAcquire(key, READER, "1", PLACE)).isPositive();
            try (Subscriber grants = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-b")) {
                assertThat(writeRelease(key, WRITER)).as("nobody in line: the shared channel too").isEqualTo(1L);
                assertThat(grants.messagesSoFar()).containsExactly("r:7:9:" + key);
            }
            admin.commands().del(leasePrefix(key, READER) + ":1"); // its grant lease ran out; the field is there
            admin.commands().pexpire(key, 20_000);
            assertThat(readLeave(key, READER, PLACE)).as("a grant that came as it gave up").isEqualTo(2L);
            assertThat(admin.commands().hget(key, READER)).isEqualTo("1");
            assertThat(admin.commands().pttl(leasePrefix(key, READER) + ":1")).isGreaterThan(6000L);
            assertThat(admin.commands().pttl(key)).as("the lock lives as long as the hold it keeps").isGreaterThan(30_000L);
            assertThat(readRelease(key, READER)).isEqualTo(1L);
            assertThat(admin.keys()).noneMatch(k -> k.contains(key));
        }

        @Test
        void aWriteReleaseWithoutWaitingReadersGrantsTheNextWriterAndWithNobodyInLineWakesEveryWaiter() {
            String key = uniqueKey();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isNull();
            assertThat(writeAcquire(key, WRITER_C, "1", LINE_MILLIS)).isPositive();
            try (Subscriber shared = subscribeTo(LockKeys.readWriteChannel(key));
                    Subscriber next = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-c")) {

                assertThat(writeRelease(key, WRITER)).isEqualTo(-1L);
                assertThat(next.messagesSoFar()).containsExactly("w:2:1:" + key);
                assertThat(shared.messagesSoFar()).as("a grant shorter than the lock's TTL: Redisson's waiters look again")
                        .containsExactly("1");
                assertThat(admin.commands().exists(LockKeys.readWriteGate(key))).as("nobody left in line").isZero();

                assertThat(writeAcquire(key, WRITER_C, "2", LINE_MILLIS)).isNull();
                assertThat(writeRelease(key, WRITER_C)).isEqualTo(2L);
                assertThat(shared.messagesSoFar()).containsExactly("1", "1");
                assertThat(admin.keys()).noneMatch(k -> k.contains(key));
            }
        }

        @Test
        void aWriterWhoseDeadlinePassedIsDroppedAndReadersGoOn() {
            String key = uniqueKey();
            assertThat(readAcquire(key, READER)).isNull();
            // gone: it never attempts again. Its deadline is 1 s away (it was 20 ms, which a slow machine could
            // pass before the next call): the reader yields to it until then
            assertThat(writeAcquire(key, WRITER, "1", "1000")).isPositive();
            assertThat(readAcquire(key, READER_C)).isPositive();

            await().atMost(Duration.ofSeconds(30)).until(() -> readAcquire(key, READER_C) == null);
            assertThat(readRelease(key, READER)).isEqualTo(1L);
            assertThat(readRelease(key, READER_C)).as("the last reader drops the gone writer").isEqualTo(1L);
            assertThat(admin.keys()).noneMatch(k -> k.contains(key));
        }

        @Test
        void aWriterLeavingTheLineGoesOneGrantedMeanwhileKeepsItAndAFirstOneLeavingAFreeLockWakesTheNext() {
            String key = uniqueKey();
            assertThat(readAcquire(key, READER)).isNull();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isPositive();
            assertThat(writeAcquire(key, WRITER_C, "1", LINE_MILLIS)).isPositive();
            try (Subscriber grants = subscribeTo(LockKeys.grantChannelPrefix(key) + "client-a")) {
                assertThat(readRelease(key, READER)).isEqualTo(1L); // grants WRITER, which gives up meanwhile
                assertThat(grants.messagesSoFar()).containsExactly("w:1:1:" + key);
            }
            assertThat(writeLeave(key, WRITER)).as("a grant that came as it gave up").isEqualTo(2L);
            assertThat(admin.commands().pttl(key)).isGreaterThan(6000L);
            assertThat(writeRelease(key, WRITER)).as("the next writer's client is not listening").isEqualTo(1L);
            assertThat(admin.commands().exists(LockKeys.readWriteLine(key))).as("passed over").isZero();

            assertThat(readAcquire(key, READER)).isNull();
            assertThat(writeAcquire(key, WRITER, "1", LINE_MILLIS)).isPositive();
            assertThat(writeAcquire(key, WRITER_C, "1", LINE_MILLIS)).isPositive();
            admin.commands().del(key); // the readers' leases ran out: free, with writers in line
            try (Subscriber next = subscribeTo(LockKeys.readWriteWriterChannel(key, WRITER_C))) {
                assertThat(writeLeave(key, WRITER)).isOne();
                assertThat(next.messagesSoFar()).containsExactly("1");
                assertThat(writeLeave(key, WRITER)).isZero();
                assertThat(writeLeave(key, WRITER_C)).isOne();
            }
            admin.commands().del(leasePrefix(key, READER) + ":1");
            assertThat(admin.keys()).noneMatch(k -> k.contains(key));
        }

        private Long readAcquire(String key, String field) {
            return readAcquire(key, field, "0", "");
        }

        private Long readAcquire(String key, String field, String mode, String place) {
            return admin.commands().eval(LuaScript.RW_READ_ACQUIRE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, leasePrefix(key, field), LockKeys.readWriteGate(key), LockKeys.readWriteReaders(key),
                        LockKeys.readWriteTurn(key)},
                    Long.toString(LONG_LEASE), field, field + ":write", LINE_MILLIS,
                    Long.toString(System.currentTimeMillis()), mode, place);
        }

        private Long readLeave(String key, String field, String place) {
            return admin.commands().eval(LuaScript.RW_READ_LEAVE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readWriteReaders(key), leasePrefix(key, field)}, field, place,
                    Long.toString(LONG_LEASE));
        }

        private Long readRelease(String key, String field) {
            return admin.commands().eval(LuaScript.RW_READ_RELEASE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readWriteChannel(key), leasePrefix(key, field), LockKeys.readWriteLine(key),
                        LockKeys.readWriteDeadlines(key), LockKeys.readWriteGate(key), LockKeys.readWriteTurn(key),
                        sinceOf(key)},
                    "1", field, "publish", "1");
        }

        /** {@code mode}: 0 without a place, 1 taking {@link #place}, 2 in line with it. */
        private Long writeAcquire(String key, String writer, String mode, String lineMillis) {
            String reader = writer.substring(0, writer.length() - ":write".length());
            return admin.commands().eval(LuaScript.RW_WRITE_ACQUIRE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readLeaseBase(key), sinceOf(key), LockKeys.readWriteLine(key),
                        LockKeys.readWriteDeadlines(key), LockKeys.readWriteGate(key), LockKeys.readWriteChannel(key),
                        LockKeys.readWriteTurn(key)},
                    Long.toString(LONG_LEASE), writer, reader, mode, lineMillis, "publish",
                    mode.equals("0") ? "" : place(writer));
        }

        /** A writer's place: a 6,000 ms grant lease, nonce 1. */
        private String place(String writer) {
            return writer + ":6000:1";
        }

        private Long writeRelease(String key, String writer) {
            return admin.commands().eval(LuaScript.RW_WRITE_RELEASE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readWriteChannel(key), sinceOf(key), LockKeys.readWriteLine(key),
                        LockKeys.readWriteDeadlines(key), LockKeys.readWriteGate(key), LockKeys.readWriteReaders(key),
                        LockKeys.readLeaseBase(key), LockKeys.readWriteTurn(key)},
                    "1", "0", writer, "publish", Long.toString(System.currentTimeMillis()), "1", "5000");
        }

        private Long writeLeave(String key, String writer) {
            return admin.commands().eval(LuaScript.RW_WRITE_LEAVE.body(), ScriptOutputType.INTEGER,
                    new String[] {key, LockKeys.readWriteChannel(key), LockKeys.readWriteLine(key),
                        LockKeys.readWriteDeadlines(key), LockKeys.readWriteGate(key), sinceOf(key)},
                    "1", place(writer), "publish", writer, Long.toString(LONG_LEASE));
        }

        private String leasePrefix(String key, String field) {
            return LockKeys.readLeaseBase(key) + ":" + field + ":rwlock_timeout";
        }
    }

    /** A pub/sub connection subscribed to one channel, recording what arrives on it. */
    private final class Subscriber implements AutoCloseable {
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final String channel;
        private final String marker = "marker-" + UUID.randomUUID();
        private final List<String> received = new ArrayList<>();

        Subscriber(StatefulRedisPubSubConnection<String, String> connection, String channel) {
            this.connection = connection;
            this.channel = channel;
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String from, String message) {
                    if (from.equals(channel)) {
                        synchronized (received) {
                            received.add(message);
                        }
                    }
                }
            });
            connection.sync().subscribe(channel); // returns once Redis confirmed
        }

        /** Everything published on the channel so far (publishes a marker and waits for it). */
        List<String> messagesSoFar() {
            assertThat(admin.commands().publish(channel, marker)).as("subscribers of %s", channel).isEqualTo(1L);
            await().atMost(Duration.ofSeconds(30)).until(() -> snapshot().contains(marker));
            List<String> messages = snapshot();
            // the markers of earlier calls are not messages
            return messages.subList(0, messages.lastIndexOf(marker)).stream().filter(m -> !m.equals(marker)).toList();
        }

        private List<String> snapshot() {
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
