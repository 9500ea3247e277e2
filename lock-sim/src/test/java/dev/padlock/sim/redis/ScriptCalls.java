package dev.padlock.sim.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls of every lock-lua script with keys and arguments drawn to mean something to it, as each
 * script's header lists them: lock names {@code a} and {@code {b}} (RLock-format locks: plain,
 * fenced and fair) and {@code rw} and {@code {rw2}} (read-write), owners {@code <client>:<thread>}
 * of clients c1 and c2 (whose grant channels the test may listen on) and c3 (nobody listens),
 * leases short (5-50 ms: they run out during a sequence) and long. Calls that need a holder or a
 * waiter (releases, renewals, hand-offs, leaves) mostly name one of the last owners that tried to
 * acquire the lock, and an owner keeps its place in a line for a while, so grants and re-entries
 * happen; this memory comes from the seed alone, not from replies. Now and then a name of the other
 * family.
 */
final class ScriptCalls {

    static final List<String> NAMES = List.of("client_register", "fair_acquire", "fair_force_release", "fair_leave",
            "fair_release", "fair_settle", "fenced_acquire", "fenced_token", "lock_abandon", "lock_acquire",
            "lock_claim", "lock_force_release", "lock_handoff", "lock_leave", "lock_release", "lock_renew", "lock_since",
            "multi_acquire", "multi_release", "rw_force_release", "rw_read_acquire", "rw_read_leave", "rw_read_locked", "rw_read_release",
            "rw_read_renew", "rw_write_acquire", "rw_write_leave", "rw_write_release");
    /** Scripts whose integer replies are durations (a PTTL or what is left of a deadline). */
    private static final List<String> DURATIONS = List.of("lock_acquire", "lock_claim", "multi_acquire", "fair_acquire",
            "fenced_acquire", "rw_read_acquire", "rw_write_acquire");
    private static final List<String> LOCKS = List.of("a", "{b}");
    private static final List<String> RW_LOCKS = List.of("rw", "{rw2}");
    private static final List<String> CLIENTS = List.of("c1", "c2", "c3");
    private static final String CLIENT_NOW = "1700000000000";
    private static final Map<String, String> BODIES = new ConcurrentHashMap<>();

    private static final List<String> ACQUIRES = List.of("lock_acquire", "lock_claim", "multi_acquire", "fenced_acquire",
            "fair_acquire", "rw_read_acquire", "rw_write_acquire");

    private final Random random;
    /** Per lock, the last owners whose calls tried to acquire it, newest last. */
    private final Map<String, List<String>> recent = new HashMap<>();
    /** Per owner and lock, the lease and nonce of its place in a line. */
    private final Map<String, String> places = new HashMap<>();
    /** The lease of the call being drawn, when its pin fixes one. */
    private String pinnedLease;

    ScriptCalls(Random random) {
        this.random = random;
    }

    /** An owner for {@code script} on {@code lock}: mostly a recent acquirer when the script needs one. */
    private String owner(String script, String lock) {
        List<String> last = recent.computeIfAbsent(lock, l -> new ArrayList<>());
        String owner;
        if (!ACQUIRES.contains(script) && !last.isEmpty() && random.nextInt(4) != 0) {
            owner = last.get(random.nextInt(last.size()));
        } else {
            owner = pick(CLIENTS) + ":" + pick(List.of("1", "2"));
        }
        if (ACQUIRES.contains(script)) {
            last.remove(owner);
            last.add(owner);
            if (last.size() > 2) {
                last.remove(0);
            }
        }
        return owner;
    }

    /** The owner's place on the lock, {@code "<lease>:<nonce>"}: the same for a while, then a new one. */
    private String place(String owner, String lock, boolean keep) {
        String key = owner + "@" + lock;
        if (!places.containsKey(key) || (!keep && random.nextInt(8) == 0)) {
            places.put(key, pick(List.of("40", "1000", "30000")) + ":" + (1 + random.nextInt(3)));
        }
        return places.get(key);
    }

    static String body(String name) {
        return BODIES.computeIfAbsent(name, LockLuaScripts::body);
    }

    static String sha(String name) {
        return ModelRedis.sha1Hex(body(name));
    }

    /** Every key the scripts may touch (for plain commands to collide with). */
    static List<String> keySpace() {
        List<String> keys = new ArrayList<>();
        for (String n : List.of("a", "{b}", "rw", "{rw2}")) {
            keys.addAll(List.of(n, suffixed("padlock_since", n), suffixed("padlock_queue", n),
                    suffixed("padlock_waiter", n) + ":c1", suffixed("padlock_fair_queue", n),
                    suffixed("redisson_lock_token", n), suffixed("redisson_lock_queue", n),
                    suffixed("redisson_lock_timeout", n), suffixed("padlock_rw_gate", n),
                    suffixed("padlock_rw_readers", n), suffixed("padlock_rw_turn", n), suffixed("padlock_rw_queue", n),
                    suffixed("padlock_rw_deadlines", n), base(n) + ":c1:1:rwlock_timeout:1"));
        }
        keys.add("padlock_client:c1");
        return keys;
    }

    static String suffixed(String prefix, String name) {
        return name.indexOf('{') >= 0 ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    private static String base(String name) {
        return name.indexOf('{') >= 0 ? name : "{" + name + "}";
    }

    /**
     * A call's fixed parts (null: drawn at random): the lock, the owner, the mode ({@code ARGV}'s
     * acquisition mode, or rw_force_release's read/write), the lease, and whether optional keys
     * and arguments are all given.
     */
    private record Pin(String lock, String owner, String mode, String lease, boolean full) {
        static final Pin NONE = new Pin(null, null, null, null, false);
    }

    private final Deque<Workload.Command> episode = new ArrayDeque<>();

    Workload.Command next() {
        if (episode.isEmpty() && random.nextInt(12) == 0) {
            startEpisode();
        }
        if (!episode.isEmpty()) {
            return episode.poll();
        }
        String name = NAMES.get(random.nextInt(NAMES.size()));
        if (random.nextInt(3) == 0) { // the busy ones more often
            name = pick(List.of("lock_acquire", "lock_release", "fair_acquire", "fair_release", "rw_read_acquire",
                    "rw_read_release", "rw_write_acquire", "rw_write_release", "lock_claim"));
        }
        return call(name, Pin.NONE);
    }

    /**
     * A few calls on one lock that lead to a hand-over: a holder, a waiter in line, the release
     * that grants, the waiter finding its grant.
     */
    private void startEpisode() {
        String a = pick(CLIENTS) + ":1";
        String b = pick(CLIENTS.stream().filter(c -> !a.startsWith(c)).toList()) + ":" + pick(List.of("1", "2"));
        String lease = Integer.toString(1000 + random.nextInt(2000));
        switch (random.nextInt(5)) {
            case 0 -> {
                String n = pick(LOCKS);
                episode.add(call("lock_force_release", new Pin(n, a, null, null, true)));
                episode.add(call("lock_acquire", new Pin(n, a, null, lease, true)));
                episode.add(call("lock_claim", new Pin(n, b, null, lease, true)));
                episode.add(call("lock_release", new Pin(n, a, null, lease, true)));
                episode.add(call("lock_claim", new Pin(n, b, null, lease, true)));
                episode.add(call("lock_release", new Pin(n, b, null, lease, true)));
            }
            case 1 -> {
                String n = pick(LOCKS);
                episode.add(call("fair_force_release", new Pin(n, a, null, null, true)));
                episode.add(call("fair_acquire", new Pin(n, a, "0", lease, true)));
                episode.add(call("fair_acquire", new Pin(n, b, "1", lease, true)));
                episode.add(call("fair_release", new Pin(n, a, null, lease, true)));
                episode.add(call("fair_acquire", new Pin(n, b, "2", lease, true)));
                episode.add(call("fair_settle", new Pin(n, b, null, lease, true)));
                episode.add(call("fair_release", new Pin(n, b, null, lease, true)));
            }
            case 2 -> {
                String n = pick(RW_LOCKS);
                episode.add(call("rw_force_release", new Pin(n, a, "write", null, true)));
                episode.add(call("rw_force_release", new Pin(n, a, "read", null, true)));
                episode.add(call("rw_write_acquire", new Pin(n, a, "0", lease, true)));
                episode.add(call("rw_read_acquire", new Pin(n, b, "1", lease, true)));
                episode.add(call("rw_write_release", new Pin(n, a, null, lease, true)));
                episode.add(call("rw_read_acquire", new Pin(n, b, "2", lease, true)));
                episode.add(call("rw_read_release", new Pin(n, b, null, lease, true)));
            }
            case 3 -> {
                String n = pick(RW_LOCKS);
                episode.add(call("rw_force_release", new Pin(n, a, "write", null, true)));
                episode.add(call("rw_force_release", new Pin(n, a, "read", null, true)));
                episode.add(call("rw_read_acquire", new Pin(n, a, "0", lease, true)));
                episode.add(call("rw_write_acquire", new Pin(n, b, "1", lease, true)));
                episode.add(call("rw_read_release", new Pin(n, a, null, lease, true)));
                episode.add(call("rw_write_acquire", new Pin(n, b, "2", lease, true)));
                episode.add(call("rw_write_release", new Pin(n, b, null, lease, true)));
            }
            default -> {
                String n = pick(LOCKS);
                String successor = a.substring(0, a.indexOf(':')) + ":2";
                episode.add(call("lock_force_release", new Pin(n, a, null, null, true)));
                episode.add(call("fenced_acquire", new Pin(n, a, null, lease, true)));
                episode.add(call("fenced_acquire", new Pin(n, a, null, lease, false)));
                episode.add(call("fenced_token", new Pin(n, a, null, lease, true)));
                episode.add(call("lock_handoff", new Pin(n, a, null, lease, true)));
                episode.add(call("lock_release", new Pin(n, successor, null, lease, true)));
            }
        }
    }

    private Workload.Command call(String name, Pin pin) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        fill(name, pin, keys, args);
        List<String> argv = new ArrayList<>(List.of("EVALSHA", sha(name), Integer.toString(keys.size())));
        argv.addAll(keys);
        argv.addAll(args);
        return new Workload.Command(argv, DURATIONS.contains(name) ? Workload.Check.DURATION : Workload.Check.EXACT,
                name);
    }

    private void fill(String script, Pin pin, List<String> k, List<String> a) {
        boolean rw = script.startsWith("rw_");
        String n = pin.lock() != null ? pin.lock()
                : random.nextInt(10) == 0 ? pick(rw ? LOCKS : RW_LOCKS) : pick(rw ? RW_LOCKS : LOCKS);
        String owner = pin.owner() != null ? pin.owner() : owner(script, n);
        pinnedLease = pin.lease();
        String client = owner.substring(0, owner.indexOf(':'));
        String thread = owner.substring(owner.indexOf(':') + 1);
        String since = suffixed("padlock_since", n);
        String unlock = suffixed("redisson_lock__channel", n);
        String rwChannel = suffixed("redisson_rwlock", n);
        String prefix = base(n) + ":" + owner + ":rwlock_timeout";
        String place = place(owner, n, pin.full());
        String placeLease = place.substring(0, place.indexOf(':'));
        String nonce = place.substring(place.indexOf(':') + 1);
        String mode = pin.mode() != null ? pin.mode() : pick(List.of("0", "1", "2", "2"));
        switch (script) {
            case "client_register" -> {
                k.add("padlock_client:" + client);
                a.addAll(List.of(lease(), "host", "h" + thread, "pid", "1"));
            }
            case "lock_acquire" -> {
                k.addAll(List.of(n, since));
                a.addAll(List.of(lease(), owner));
            }
            case "lock_claim" -> {
                k.add(n);
                a.addAll(List.of(lease(), owner));
                if (pin.full() || random.nextInt(4) != 0) {
                    k.addAll(List.of(suffixed("padlock_queue", n), suffixed("padlock_waiter", n) + ":" + client));
                    a.addAll(List.of(!pin.full() && random.nextInt(5) == 0 ? "" : thread + ":" + placeLease + ":" + nonce,
                            lease(),
                            client, pick(List.of("0", "1"))));
                }
            }
            case "lock_release" -> {
                k.addAll(List.of(n, unlock, since));
                a.addAll(List.of("0", innerLease(), owner, "publish"));
                if (pin.full() || random.nextInt(4) != 0) {
                    k.addAll(List.of(suffixed("padlock_queue", n), suffixed("padlock_waiter", n) + ":" + client));
                    if (random.nextBoolean()) {
                        a.addAll(List.of(thread + ":" + placeLease + ":" + nonce, lease()));
                    }
                }
            }
            case "lock_since" -> {
                k.addAll(List.of(n, since));
                a.addAll(List.of(owner, Integer.toString(random.nextInt(3_000))));
            }
            case "lock_renew", "rw_read_renew" -> {
                a.add(lease());
                for (int i = 1 + random.nextInt(2); i > 0; i--) {
                    String lock = i == 1 ? n : pick(rw ? RW_LOCKS : LOCKS);
                    String o = i == 1 ? owner : pick(CLIENTS) + ":1";
                    k.add(lock);
                    if (rw) {
                        k.add(base(lock) + ":" + o + ":rwlock_timeout");
                    }
                    k.add(suffixed("padlock_since", lock));
                    a.add(o);
                }
            }
            case "multi_acquire" -> {
                k.addAll(List.of(n, since));
                if (random.nextBoolean()) {
                    String other = pick(LOCKS.stream().filter(l -> !l.equals(n)).toList());
                    k.addAll(List.of(other, suffixed("padlock_since", other)));
                }
                a.addAll(List.of(lease(), owner, pick(List.of("0", "1"))));
            }
            case "multi_release" -> {
                k.addAll(List.of(n, unlock, since));
                if (random.nextBoolean()) {
                    String other = pick(LOCKS.stream().filter(l -> !l.equals(n)).toList());
                    k.addAll(List.of(other, suffixed("redisson_lock__channel", other), suffixed("padlock_since", other)));
                }
                a.addAll(List.of("0", innerLease(), owner, "publish"));
            }
            case "lock_handoff" -> {
                k.addAll(List.of(n, since));
                a.addAll(List.of(lease(), owner, client + ":" + (thread.equals("1") ? "2" : "1"), innerLease()));
            }
            case "lock_leave" -> {
                k.addAll(List.of(suffixed("padlock_queue", n), suffixed("padlock_waiter", n) + ":" + client));
                a.addAll(List.of(client, thread));
            }
            case "lock_abandon" -> {
                k.addAll(List.of(n, unlock, since));
                a.addAll(List.of("0", owner, "publish"));
            }
            case "lock_force_release" -> {
                k.addAll(List.of(n, unlock, since));
                a.addAll(List.of("0", "publish"));
            }
            case "fenced_acquire" -> {
                k.addAll(List.of(n, suffixed("redisson_lock_token", n), since));
                a.addAll(List.of(lease(), owner));
                if (pin.full() || random.nextBoolean()) {
                    a.add(pin.full() ? "1" : pick(List.of("0", "1")));
                }
            }
            case "fenced_token" -> k.addAll(List.of(n, suffixed("redisson_lock_token", n)));
            case "fair_acquire" -> {
                k.addAll(List.of(n, suffixed("padlock_fair_queue", n), since));
                a.addAll(List.of(lease(), owner, mode, owner + ":" + placeLease + ":" + nonce, "publish", heard(),
                        lease()));
            }
            case "fair_release" -> {
                k.addAll(List.of(n, suffixed("padlock_fair_queue", n), since, suffixed("redisson_lock_queue", n),
                        unlock, suffixed("redisson_lock_timeout", n)));
                a.addAll(List.of(innerLease(), owner, "publish", heard()));
            }
            case "fair_leave" -> {
                k.addAll(List.of(n, suffixed("padlock_fair_queue", n), since));
                a.addAll(List.of(owner, owner + ":" + placeLease + ":" + nonce, lease()));
            }
            case "fair_settle" -> {
                k.addAll(List.of(n, since));
                a.addAll(List.of(owner, Integer.toString(random.nextInt(50))));
            }
            case "fair_force_release" -> {
                k.addAll(List.of(n, since, unlock, suffixed("redisson_lock_queue", n),
                        suffixed("redisson_lock_timeout", n)));
                a.addAll(List.of("0", "publish"));
            }
            case "rw_read_acquire" -> {
                k.addAll(List.of(n, prefix, suffixed("padlock_rw_gate", n), suffixed("padlock_rw_readers", n),
                        suffixed("padlock_rw_turn", n)));
                a.addAll(List.of(lease(), owner, owner + ":write", lease(), CLIENT_NOW, mode,
                        placeLease + ":" + nonce));
            }
            case "rw_read_release" -> {
                k.addAll(List.of(n, rwChannel, prefix, suffixed("padlock_rw_queue", n),
                        suffixed("padlock_rw_deadlines", n), suffixed("padlock_rw_gate", n),
                        suffixed("padlock_rw_turn", n), since));
                a.addAll(List.of("1", owner, "publish", heard()));
            }
            case "rw_read_leave" -> {
                k.addAll(List.of(n, suffixed("padlock_rw_readers", n), prefix));
                a.addAll(List.of(owner, placeLease + ":" + nonce, lease()));
            }
            case "rw_read_locked" -> k.add(n);
            case "rw_write_acquire" -> {
                k.addAll(List.of(n, base(n), since, suffixed("padlock_rw_queue", n), suffixed("padlock_rw_deadlines", n),
                        suffixed("padlock_rw_gate", n), rwChannel, suffixed("padlock_rw_turn", n)));
                a.addAll(List.of(lease(), owner + ":write", owner, mode, lease(), "publish",
                        owner + ":write:" + placeLease + ":" + nonce));
            }
            case "rw_write_release" -> {
                k.addAll(List.of(n, rwChannel, since, suffixed("padlock_rw_queue", n),
                        suffixed("padlock_rw_deadlines", n), suffixed("padlock_rw_gate", n),
                        suffixed("padlock_rw_readers", n), base(n), suffixed("padlock_rw_turn", n)));
                a.addAll(List.of("1", innerLease(), owner + ":write", "publish", CLIENT_NOW, heard(), lease()));
            }
            case "rw_write_leave" -> {
                k.addAll(List.of(n, rwChannel, suffixed("padlock_rw_queue", n), suffixed("padlock_rw_deadlines", n),
                        suffixed("padlock_rw_gate", n), since));
                a.addAll(List.of("1", owner + ":write:" + placeLease + ":" + nonce, "publish", owner + ":write",
                        lease()));
            }
            case "rw_force_release" -> {
                k.addAll(List.of(n, rwChannel, since, suffixed("padlock_rw_queue", n),
                        suffixed("padlock_rw_readers", n), suffixed("padlock_rw_turn", n)));
                a.addAll(List.of("1", pin.mode() != null ? pin.mode() : pick(List.of("read", "write")), "publish"));
            }
            default -> throw new IllegalStateException("no arguments for " + script);
        }
    }

    /** A lease: short (runs out within the sequence), medium, or long. */
    private String lease() {
        return pinnedLease != null ? pinnedLease : lease(random);
    }

    /** A lease drawn from {@code random}: short (runs out within the sequence), medium, or long. */
    static String lease(Random random) {
        int roll = random.nextInt(20);
        if (roll < 7) {
            return Integer.toString(5 + random.nextInt(46));
        }
        if (roll < 17) {
            return Integer.toString(100 + random.nextInt(1400));
        }
        return "30000";
    }

    private String innerLease() {
        return random.nextBoolean() ? "0" : lease();
    }

    private String heard() {
        return random.nextInt(5) == 0 ? "0" : "1";
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }
}
