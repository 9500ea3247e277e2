package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.internal.script.LuaScript;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What "since" and the client registry cost on Redis, measured with {@code INFO commandstats} on
 * one server in the same run. "Since": each lock kind's acquire/release cycle run with the scripts
 * as they were before it ({@code src/test/resources/before-since}, copied from the commit before)
 * and as they are now; the round trips ({@code EVALSHA}/{@code EVAL}) must not change, only the
 * commands the scripts call inside. The registry: what one client's start, refreshes and close
 * send, and the size of its entry.
 */
@RedisTest
class OperatingCostTest {
    private static final int CYCLES = 200;
    private static final String LEASE = "30000";
    private static final String OWNER = "client-a:1";
    private static final String SUCCESSOR = "client-a:2";

    @Test
    void sinceAddsNoRoundTripAndAFewCallsInsideTheScripts(RedisAdmin admin) {
        List<String> rows = new ArrayList<>();
        rows.add(String.format("%-34s %8s %8s %8s %8s", "cycle (per acquisition)", "trips", "before", "after", "added"));
        for (Kind kind : Kind.values()) {
            CommandStats before = measure(admin, kind, false);
            CommandStats after = measure(admin, kind, true);
            double tripsBefore = trips(before) / (double) (CYCLES * kind.acquisitions);
            double tripsAfter = trips(after) / (double) (CYCLES * kind.acquisitions);
            double callsBefore = before.total() / (double) (CYCLES * kind.acquisitions);
            double callsAfter = after.total() / (double) (CYCLES * kind.acquisitions);
            rows.add(String.format("%-34s %8.2f %8.2f %8.2f %+8.2f   (%s)", kind.label, tripsAfter, callsBefore,
                    callsAfter, callsAfter - callsBefore, CommandStats.delta(before, after)));
            assertThat(tripsAfter).as("round trips of %s", kind.label).isEqualTo(tripsBefore);
            assertThat(callsAfter - callsBefore).as("calls added inside the scripts of %s", kind.label)
                    .isLessThanOrEqualTo(kind == Kind.WRITE ? 7.0 : 4.0); // the writers' line (issue 13): 3 more
            assertThat(admin.keys()).as("nothing left by %s", kind.label).isEmpty();
        }
        System.out.println("Redis calls per acquisition (INFO commandstats, acquire + release, same server, same run):");
        rows.forEach(System.out::println);
    }

    @Test
    void theRegistryCostsOneScriptCallPerClientEveryTwentySeconds(RedisEndpoint redis, RedisAdmin admin) {
        CommandStats start = admin.commandStats();
        String key;
        long bytes;
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(redis.uri()).build())) {
            key = LockKeys.client(client.getId());
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.commands().exists(key) == 1L);
            bytes = admin.commands().memoryUsage(key);
        }
        CommandStats used = CommandStats.delta(start, admin.commandStats()).without("info", "exists", "memory|usage", "memory");
        System.out.printf("client registry: a client's start and close sent %s; its entry takes %d bytes; "
                + "refreshed every 20 s (TTL 60 s): 3 client_register calls (evalsha, hset, pexpire), 9 commands in 3 round trips, "
                + "per client per minute%n", used, bytes);
        // one script call, through the script runner: EVALSHA, and EVAL once more on a server that had
        // not seen client_register yet (NOSCRIPT); the script ran once: one HSET, one PEXPIRE
        assertThat(trips(used)).as("one script call: the entry never lacks its expiry").isBetween(1L, 2L);
        assertThat(used.calls("hset")).isEqualTo(1);
        assertThat(used.calls("pexpire")).isEqualTo(1);
        assertThat(used.calls("del")).isEqualTo(1);
        assertThat(admin.commands().exists(key)).isZero();
    }

    private static long trips(CommandStats stats) {
        return stats.calls("evalsha") + stats.calls("eval");
    }

    /** {@code CYCLES} cycles of {@code kind} with the scripts before or after "since": the calls they cost. */
    private static CommandStats measure(RedisAdmin admin, Kind kind, boolean since) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < CYCLES; i++) {
            names.add("cost:" + UUID.randomUUID());
        }
        CommandStats start = admin.commandStats();
        for (String name : names) {
            kind.cycle(new Scripts(admin, name, since));
        }
        return CommandStats.delta(start, admin.commandStats()).without("info");
    }

    /** One lock kind's cycle: acquisitions and the releases that end them. */
    private enum Kind {
        CLAIM("plain: claim, release", 1) {
            @Override
            void cycle(Scripts s) {
                s.lock("lock_claim", LuaScript.LOCK_CLAIM, LEASE, OWNER);
                s.release(OWNER);
            }
        },
        REENTRY("plain: claim, re-entry, 2 releases", 2) {
            @Override
            void cycle(Scripts s) {
                s.lock("lock_claim", LuaScript.LOCK_CLAIM, LEASE, OWNER);
                s.lock("lock_acquire", LuaScript.LOCK_ACQUIRE, LEASE, OWNER);
                s.release(OWNER);
                s.release(OWNER);
            }
        },
        HAND_OFF("plain: claim, hand-off, release", 2) {
            @Override
            void cycle(Scripts s) {
                s.lock("lock_claim", LuaScript.LOCK_CLAIM, LEASE, OWNER);
                s.lock("lock_handoff", LuaScript.LOCK_HANDOFF, LEASE, OWNER, SUCCESSOR, "0");
                s.release(SUCCESSOR);
            }
        },
        FENCED("fenced: claim, release", 1) {
            @Override
            void cycle(Scripts s) {
                s.run("fenced_acquire", LuaScript.FENCED_ACQUIRE, ScriptOutputType.MULTI,
                        s.keys(s.name, LockKeys.fencingTokens(s.name)), LEASE, OWNER, "1");
                s.release(OWNER);
                s.admin.commands().del(LockKeys.fencingTokens(s.name));
            }
        },
        FAIR("fair: acquire, release", 1) {
            @Override
            void cycle(Scripts s) {
                if (!s.since) { // the scripts before "since", on Redisson's queue and deadlines
                    String queue = "redisson_lock_queue:{" + s.name + "}";
                    String deadlines = "redisson_lock_timeout:{" + s.name + "}";
                    s.run("fair_acquire", LuaScript.FAIR_ACQUIRE, ScriptOutputType.INTEGER,
                            new String[] {s.name, queue, deadlines}, LEASE, OWNER, "5000", "1");
                    s.run("fair_release", LuaScript.FAIR_RELEASE, ScriptOutputType.INTEGER,
                            new String[] {s.name, queue, deadlines, LockKeys.unlockChannel(s.name),
                                    LockKeys.unlockChannel(s.name), deadlines}, "0", "0", OWNER, "publish");
                    return;
                }
                String[] keys = {s.name, LockKeys.fairQueue(s.name), LockKeys.since(s.name)};
                s.run("fair_acquire", LuaScript.FAIR_ACQUIRE, ScriptOutputType.INTEGER, keys, LEASE, OWNER, "1",
                        OWNER + ":6000:1", "publish", "1", "2000");
                s.run("fair_release", LuaScript.FAIR_RELEASE, ScriptOutputType.INTEGER,
                        new String[] {s.name, LockKeys.fairQueue(s.name), LockKeys.since(s.name),
                                LockKeys.redissonFairQueue(s.name), LockKeys.unlockChannel(s.name),
                                LockKeys.redissonFairDeadlines(s.name)},
                        "0", OWNER, "publish", "1");
            }
        },
        READ("read: acquire, release", 1) {
            @Override
            void cycle(Scripts s) {
                String prefix = LockKeys.readLeaseBase(s.name) + ":" + OWNER + ":rwlock_timeout";
                if (!s.since) {
                    s.run("rw_read_acquire", LuaScript.RW_READ_ACQUIRE, ScriptOutputType.INTEGER, s.keys(s.name, prefix),
                            LEASE, OWNER, OWNER + ":write");
                    s.run("rw_read_release", LuaScript.RW_READ_RELEASE, ScriptOutputType.INTEGER,
                            s.keys(s.name, LockKeys.readWriteChannel(s.name), prefix, LockKeys.readLeaseBase(s.name)),
                            "1", OWNER, "publish");
                    return;
                }
                // since the writers' line: a reader's since is its first lease key's value
                s.run("rw_read_acquire", LuaScript.RW_READ_ACQUIRE, ScriptOutputType.INTEGER,
                        new String[] {s.name, prefix, LockKeys.readWriteGate(s.name), LockKeys.readWriteReaders(s.name),
                            LockKeys.readWriteTurn(s.name)},
                        LEASE, OWNER, OWNER + ":write", "6000", Long.toString(System.currentTimeMillis()), "0", "");
                s.run("rw_read_release", LuaScript.RW_READ_RELEASE, ScriptOutputType.INTEGER,
                        new String[] {s.name, LockKeys.readWriteChannel(s.name), prefix, LockKeys.readWriteLine(s.name),
                            LockKeys.readWriteDeadlines(s.name), LockKeys.readWriteGate(s.name),
                            LockKeys.readWriteTurn(s.name), LockKeys.since(s.name)},
                        "1", OWNER, "publish", "1");
            }
        },
        WRITE("write: acquire, release", 1) {
            @Override
            void cycle(Scripts s) {
                if (!s.since) {
                    s.run("rw_write_acquire", LuaScript.RW_WRITE_ACQUIRE, ScriptOutputType.INTEGER,
                            s.keys(s.name, LockKeys.readLeaseBase(s.name)), LEASE, OWNER + ":write", OWNER);
                    s.run("rw_write_release", LuaScript.RW_WRITE_RELEASE, ScriptOutputType.INTEGER,
                            s.keys(s.name, LockKeys.readWriteChannel(s.name), LockKeys.readLeaseBase(s.name)),
                            "1", "0", OWNER + ":write", "publish");
                    return;
                }
                String channel = LockKeys.readWriteChannel(s.name);
                String line = LockKeys.readWriteLine(s.name);
                String deadlines = LockKeys.readWriteDeadlines(s.name);
                String gate = LockKeys.readWriteGate(s.name);
                s.run("rw_write_acquire", LuaScript.RW_WRITE_ACQUIRE, ScriptOutputType.INTEGER,
                        new String[] {s.name, LockKeys.readLeaseBase(s.name), LockKeys.since(s.name), line, deadlines,
                            gate, channel, LockKeys.readWriteTurn(s.name)},
                        LEASE, OWNER + ":write", OWNER, "1", "6000", "publish", OWNER + ":write:6000:1");
                s.run("rw_write_release", LuaScript.RW_WRITE_RELEASE, ScriptOutputType.INTEGER,
                        new String[] {s.name, channel, LockKeys.since(s.name), line, deadlines, gate,
                            LockKeys.readWriteReaders(s.name), LockKeys.readLeaseBase(s.name),
                            LockKeys.readWriteTurn(s.name)},
                        "1", "0", OWNER + ":write", "publish", Long.toString(System.currentTimeMillis()), "1", "50");
            }
        };

        final String label;
        final int acquisitions;

        Kind(String label, int acquisitions) {
            this.label = label;
            this.acquisitions = acquisitions;
        }

        abstract void cycle(Scripts s);
    }

    /** Runs one lock's scripts, the old bodies with the old keys or the new ones with the since key appended. */
    private record Scripts(RedisAdmin admin, String name, boolean since) {
        String[] keys(String... keys) {
            if (!since) {
                return keys;
            }
            String[] withSince = java.util.Arrays.copyOf(keys, keys.length + 1);
            withSince[keys.length] = LockKeys.since(name);
            return withSince;
        }

        void lock(String file, LuaScript script, String... args) {
            run(file, script, ScriptOutputType.INTEGER, keys(name), args);
        }

        void release(String field) {
            run("lock_release", LuaScript.LOCK_RELEASE, ScriptOutputType.INTEGER,
                    keys(name, LockKeys.unlockChannel(name)), "0", "0", field, "publish");
        }

        void run(String file, LuaScript script, ScriptOutputType type, String[] keys, String... args) {
            String body = since ? script.body() : old(file);
            admin.commands().eval(body, type, keys, args);
        }

        private static String old(String file) {
            try (InputStream in = OperatingCostTest.class.getResourceAsStream("/before-since/" + file + ".lua")) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
