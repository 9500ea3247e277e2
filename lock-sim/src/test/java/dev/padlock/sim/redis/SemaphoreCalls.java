package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * Calls of the semaphore scripts ({@code semaphore_*.lua}, {@code permit_*.lua}) for the
 * differential test, with keys and arguments as each script's header lists them: counted
 * semaphores {@code sem} and {@code {sem2}}, permit-expirable ones {@code ps} and {@code {ps2}}
 * (each with its channel {@code redisson_sc:{<name>}} and, for the latter, its leases
 * {@code {<name>}:timeout}), counts mostly small (now and then a removal, so a count goes below
 * 0), leases short (they run out within a sequence) and long, and permit ids from a small set, the
 * last ones taken mostly, so releases and renewals find them. Now and then a Redisson permit with
 * no expiry (its score 922337203685477), and a name of the other family, so types collide.
 */
final class SemaphoreCalls {

    static final List<String> NAMES = List.of("permit_acquire", "permit_available", "permit_release", "permit_renew",
            "semaphore_acquire", "semaphore_add", "semaphore_drain", "semaphore_release", "semaphore_set");
    /** Scripts whose integer replies are durations (what is left of the nearest lease). */
    static final List<String> DURATIONS = List.of("permit_acquire");
    static final List<String> CHANNELS = List.of("redisson_sc:{sem}", "redisson_sc:{sem2}", "redisson_sc:{ps}",
            "redisson_sc:{ps2}");
    private static final List<String> COUNTED = List.of("sem", "{sem2}");
    private static final List<String> EXPIRABLE = List.of("ps", "{ps2}");
    private static final List<String> IDS = List.of("00000000000000000000000000000001",
            "00000000000000000000000000000002", "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    /** Redisson's permits without a lease end here (permit_acquire skips them as a nearest lease). */
    private static final String NO_EXPIRY = "922337203685477";

    private final Random random;
    private final LongSupplier clock;
    /** The ids of the last permits asked for, newest last. */
    private final List<String> recentIds = new ArrayList<>();

    SemaphoreCalls(Random random, LongSupplier clock) {
        this.random = random;
        this.clock = clock;
    }

    /** Every key the semaphore scripts may touch. */
    static List<String> keySpace() {
        List<String> keys = new ArrayList<>(COUNTED);
        for (String name : EXPIRABLE) {
            keys.add(name);
            keys.add(leases(name));
        }
        return keys;
    }

    static String channel(String name) {
        return ScriptCalls.suffixed("redisson_sc", name);
    }

    static String leases(String name) {
        return (name.indexOf('{') >= 0 ? name : "{" + name + "}") + ":timeout";
    }

    Workload.Command next() {
        if (random.nextInt(40) == 0) {
            // a Redisson permit with no lease, or one whose lease ended long ago
            String score = random.nextBoolean() ? NO_EXPIRY : Long.toString(clock.getAsLong() - 5_000);
            return new Workload.Command(List.of("ZADD", leases(pick(EXPIRABLE)), score, id()), Workload.Check.EXACT,
                    null);
        }
        String name = random.nextInt(3) == 0 ? pick(List.of("semaphore_set", "permit_acquire", "permit_release"))
                : pick(NAMES);
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        fill(name, keys, args);
        List<String> argv = new ArrayList<>(List.of("EVALSHA", ScriptCalls.sha(name), Integer.toString(keys.size())));
        argv.addAll(keys);
        argv.addAll(args);
        return new Workload.Command(argv, DURATIONS.contains(name) ? Workload.Check.DURATION : Workload.Check.EXACT,
                name);
    }

    private void fill(String script, List<String> k, List<String> a) {
        boolean permits = script.startsWith("permit_");
        String n = random.nextInt(10) == 0 ? pick(permits ? COUNTED : EXPIRABLE) : pick(permits ? EXPIRABLE : COUNTED);
        String publish = "publish";
        switch (script) {
            case "semaphore_acquire" -> {
                k.add(n);
                a.add(count());
            }
            case "semaphore_drain" -> k.add(n);
            case "semaphore_set", "semaphore_release" -> {
                k.addAll(List.of(n, channel(n)));
                a.addAll(List.of(count(), publish));
            }
            case "semaphore_add" -> {
                k.addAll(List.of(n, channel(n)));
                a.addAll(List.of(random.nextInt(4) == 0 ? "-" + count() : count(), publish));
            }
            case "permit_acquire" -> {
                k.addAll(List.of(n, leases(n), channel(n)));
                String id = pick(IDS);
                recentIds.remove(id);
                recentIds.add(id);
                if (recentIds.size() > 3) {
                    recentIds.remove(0);
                }
                a.addAll(List.of(lease(), id, publish));
            }
            case "permit_available" -> {
                k.addAll(List.of(n, leases(n), channel(n)));
                a.add(publish);
            }
            case "permit_release" -> {
                k.addAll(List.of(n, leases(n), channel(n)));
                a.addAll(List.of(id(), publish));
            }
            case "permit_renew" -> {
                k.add(leases(n));
                a.addAll(List.of(id(), lease()));
            }
            default -> throw new IllegalStateException("no arguments for " + script);
        }
    }

    /** A permit id: mostly one of the last asked for. */
    private String id() {
        return !recentIds.isEmpty() && random.nextInt(4) != 0 ? recentIds.get(random.nextInt(recentIds.size()))
                : pick(IDS);
    }

    private String count() {
        return Integer.toString(1 + random.nextInt(random.nextInt(5) == 0 ? 5 : 2));
    }

    /** A lease: short (runs out within the sequence), medium, or long, as the lock scripts get. */
    private String lease() {
        return ScriptCalls.lease(random);
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }
}
