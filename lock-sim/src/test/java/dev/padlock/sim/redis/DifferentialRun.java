package dev.padlock.sim.redis;

import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One seeded sequence of the differential test: each step runs on the real server, then on the
 * model, and the two must agree (see {@link Comparison}).
 *
 * <p>Implementation notes. The model's clock is the wall clock, but a command reaches the real
 * server at some instant between the moments before and after its round trip. So the step is
 * replayed on copies of the model at each millisecond of that window (a sample when it is long),
 * and the copy that agrees with the server and is closest to it (PTTLs, TIME-derived values)
 * becomes the model. Before a step, the run waits while an instant that decides an outcome is
 * within a few ms of now: a key's expiry, a half-second edge where TTL's rounding turns (scripts
 * compare TTL * 1000 with leases), an epoch-ms deadline in a sorted set. The state is read from
 * the server by one script (all keys at one instant, TIME included) and the model is looked at
 * as of that instant. Messages are read after a PING on each subscriber connection: Redis sends
 * a connection's messages in order, so every message of the step has arrived by its reply.
 */
final class DifferentialRun {

    private static final String DUMP = """
            local t = redis.call('time')
            local out = {t[1], t[2]}
            for _, k in ipairs(redis.call('keys', '*')) do
              local ty = redis.call('type', k)['ok']
              local v = {}
              if ty == 'string' then v = {redis.call('get', k)}
              elseif ty == 'hash' then v = redis.call('hgetall', k)
              elseif ty == 'list' then v = redis.call('lrange', k, 0, -1)
              elseif ty == 'zset' then v = redis.call('zrange', k, 0, -1, 'withscores') end
              table.insert(out, {k, ty, redis.call('pttl', k), v})
            end
            return out
            """;
    private static final int GUARD_MILLIS = 4;
    private static final int MAX_CANDIDATES = 16;
    private static final int HISTORY = 25;

    /** What the run measured, for the report. */
    record Summary(long seed, int steps, long commands, long millis, long largestPttlGap, int replayedSteps,
            int guardWaits, long publishes) {
    }

    private final RespClient real;
    private final Map<String, StatefulRedisPubSubConnection<String, String>> subscribers;
    private final Map<String, Queue<String>> received;
    private final int majorVersion;
    private final long seed;
    private final Map<String, Set<String>> subscriptions = new HashMap<>();
    private final Deque<String> history = new ArrayDeque<>();
    private Clock modelClock = new Clock(System.currentTimeMillis());
    private ModelRedis model;
    private long commands;
    private long largestPttlGap;
    private int replayedSteps;
    private int guardWaits;

    DifferentialRun(RespClient real, Map<String, StatefulRedisPubSubConnection<String, String>> subscribers,
            Map<String, Queue<String>> received, int majorVersion, long seed) {
        this.real = real;
        this.subscribers = subscribers;
        this.received = received;
        this.majorVersion = majorVersion;
        this.seed = seed;
    }

    Summary run(int steps) {
        long start = System.nanoTime();
        real.call("FLUSHALL");
        real.call("SCRIPT", "FLUSH");
        subscribers.forEach((name, connection) -> {
            connection.sync().unsubscribe();
            subscriptions.put(name, new LinkedHashSet<>());
        });
        deliveredSinceLastStep();
        Clock clock = modelClock;
        model = new ModelRedis(() -> clock.now, majorVersion);
        Workload workload = new Workload(seed, System::currentTimeMillis);
        workload.initialSubscriptions().forEach(this::subscription);
        for (int i = 0; i < steps; i++) {
            Workload.Step step = workload.next();
            if (step instanceof Workload.Command c) {
                Object reply = compared(i, c.argv(), c.check());
                if (c.script() != null && reply instanceof RespClient.ErrorReply e && e.code().equals("NOSCRIPT")) {
                    List<String> eval = new ArrayList<>(c.argv());
                    eval.set(0, "EVAL");
                    eval.set(1, ScriptCalls.body(c.script()));
                    compared(i, eval, c.check());
                }
            } else if (step instanceof Workload.Subscription s) {
                subscription(s);
            } else if (step instanceof Workload.AwaitExpiry a) {
                awaitExpiry(i, a.withinMillis());
            }
        }
        return new Summary(seed, steps, commands, (System.nanoTime() - start) / 1_000_000, largestPttlGap,
                replayedSteps, guardWaits, model.published().size());
    }

    private void subscription(Workload.Subscription s) {
        StatefulRedisPubSubConnection<String, String> connection = subscribers.get(s.subscriber());
        if (s.subscribe()) {
            connection.sync().subscribe(s.channel());
            model.subscribe(s.subscriber(), s.channel());
            subscriptions.get(s.subscriber()).add(s.channel());
        } else {
            connection.sync().unsubscribe(s.channel());
            model.unsubscribe(s.subscriber(), s.channel());
            subscriptions.get(s.subscriber()).remove(s.channel());
        }
        remember("(" + s + ")");
    }

    /** Waits until the keys with a PTTL of at most {@code within} are gone from both, then checks one. */
    private void awaitExpiry(int index, long within) {
        long now = System.currentTimeMillis();
        modelClock.now = now;
        List<String> expiring = new ArrayList<>();
        long last = now;
        for (Map.Entry<String, ModelRedis.Entry> e : model.snapshot().entrySet()) {
            long pttl = e.getValue().pttl();
            if (pttl >= 0 && pttl <= within) {
                expiring.add(e.getKey());
                last = Math.max(last, now + pttl);
            }
        }
        if (expiring.isEmpty()) {
            return;
        }
        waitUntilPast(last + GUARD_MILLIS);
        long deadline = System.nanoTime() + 2_000_000_000L;
        for (String key : expiring) {
            while (!Long.valueOf(-2).equals(real.call("PTTL", key))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("seed " + seed + ": " + key + " outlived its expiry on the real server");
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
        compared(index, List.of("PTTL", expiring.get(0)), Workload.Check.DURATION);
    }

    private Object compared(int index, List<String> argv, Workload.Check check) {
        guard();
        long t0 = System.currentTimeMillis();
        Object realReply = real.call(argv);
        long t1 = System.currentTimeMillis();
        commands++;
        Map<String, List<String>> delivered = deliveredSinceLastStep();
        List<?> dump = (List<?>) real.call("EVAL", DUMP, "0");
        long dumpTime = Long.parseLong((String) dump.get(0)) * 1000 + Long.parseLong((String) dump.get(1)) / 1000;
        Map<String, Comparison.Key> realKeys = Comparison.fromDump(dump);
        Candidate best = null;
        Candidate closestFailure = null;
        List<Long> times = candidateTimes(t0, t1);
        for (long time : times) {
            Candidate candidate = replay(argv, check, time, realReply, delivered, realKeys, dumpTime);
            if (candidate.comparison.agrees()) {
                if (best == null || candidate.comparison.metric() < best.comparison.metric()) {
                    best = candidate;
                }
            } else if (closestFailure == null
                    || candidate.comparison.differences().size() < closestFailure.comparison.differences().size()) {
                closestFailure = candidate;
            }
        }
        if (times.size() > 1) {
            replayedSteps++;
        }
        if (best == null) {
            throw new AssertionError(report(index, argv, realReply, closestFailure, t0, t1, dumpTime));
        }
        model = best.model;
        modelClock = best.clock;
        largestPttlGap = Math.max(largestPttlGap, best.comparison.largestPttlGap());
        remember(abbreviate(argv) + " -> " + Comparison.show(realReply));
        return realReply;
    }

    /** One replay of a step on a copy of the model at {@code time}, compared with the server. */
    private record Candidate(ModelRedis model, Clock clock, Object reply, Comparison comparison) {
    }

    /** A settable clock for one model copy. */
    private static final class Clock {
        long now;

        Clock(long now) {
            this.now = now;
        }
    }

    private Candidate replay(List<String> argv, Workload.Check check, long time, Object realReply,
            Map<String, List<String>> delivered, Map<String, Comparison.Key> realKeys, long dumpTime) {
        Clock clock = new Clock(time);
        ModelRedis copy = model.copy(() -> clock.now);
        int before = copy.published().size();
        Object reply;
        try {
            reply = copy.execute(argv);
        } catch (ModelRedisException e) {
            reply = new RespClient.ErrorReply(e.getMessage());
        }
        Comparison comparison = new Comparison();
        if (check == Workload.Check.DBSIZE) {
            long alive = copy.snapshot().values().stream()
                    .filter(e -> e.pttl() == -1 || e.pttl() > Comparison.PRESENCE_SLACK).count();
            comparison.dbsize(realReply, alive, reply instanceof Long n ? n : -1);
        } else {
            comparison.replies(check, realReply, reply);
        }
        List<ModelRedis.Published> published = copy.published();
        for (String subscriber : Workload.SUBSCRIBERS) {
            List<String> expected = new ArrayList<>();
            for (ModelRedis.Published p : published.subList(before, published.size())) {
                if (subscriptions.get(subscriber).contains(p.channel())) {
                    expected.add(p.channel() + " " + p.message());
                }
            }
            comparison.deliveries(subscriber, delivered.get(subscriber), expected);
        }
        clock.now = dumpTime;
        comparison.keys(realKeys, Comparison.fromModel(copy.snapshot()));
        clock.now = time;
        return new Candidate(copy, clock, reply, comparison);
    }

    private static List<Long> candidateTimes(long t0, long t1) {
        List<Long> times = new ArrayList<>();
        long span = Math.max(0, t1 - t0);
        if (span < MAX_CANDIDATES) {
            for (long t = t0; t <= t0 + span; t++) {
                times.add(t);
            }
        } else {
            for (int i = 0; i < MAX_CANDIDATES; i++) {
                times.add(t0 + span * i / (MAX_CANDIDATES - 1));
            }
        }
        return times;
    }

    /** Waits while an instant that decides an outcome is within {@value #GUARD_MILLIS} ms of now. */
    private void guard() {
        for (int round = 0; round < 50; round++) {
            long now = System.currentTimeMillis();
            long latest = Long.MIN_VALUE;
            modelClock.now = now - 2 * GUARD_MILLIS;
            for (ModelRedis.Entry entry : model.snapshot().values()) {
                for (long instant : decisiveInstants(entry, modelClock.now)) {
                    if (Math.abs(instant - now) <= GUARD_MILLIS) {
                        latest = Math.max(latest, instant);
                    }
                }
            }
            modelClock.now = now;
            if (latest == Long.MIN_VALUE) {
                return;
            }
            guardWaits++;
            waitUntilPast(latest + GUARD_MILLIS);
        }
        throw new AssertionError("seed " + seed + ": the guard never found a quiet moment");
    }

    private static List<Long> decisiveInstants(ModelRedis.Entry entry, long at) {
        List<Long> instants = new ArrayList<>();
        if (entry.pttl() >= 0) {
            long expireAt = at + entry.pttl();
            instants.add(expireAt);
            for (long edge = expireAt - 500; edge >= at; edge -= 1000) {
                instants.add(edge); // TTL's rounding turns here
            }
        }
        if (entry.type().equals("zset")) {
            for (Object score : ((Map<?, ?>) entry.value()).values()) {
                double s = (Double) score;
                if (s >= 1e12 && s < 1e13) {
                    instants.add((long) s); // an epoch-ms deadline
                }
            }
        }
        return instants;
    }

    private static void waitUntilPast(long epochMillis) {
        long bound = System.nanoTime() + 5_000_000_000L;
        while (System.currentTimeMillis() <= epochMillis) {
            if (System.nanoTime() - bound > 0) {
                throw new AssertionError("waited over 5 s for the clock to pass " + epochMillis);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** The messages each subscriber got since the last call: a PING first, so all of them are in. */
    private Map<String, List<String>> deliveredSinceLastStep() {
        Map<String, List<String>> delivered = new HashMap<>();
        subscribers.forEach((name, connection) -> {
            connection.sync().ping();
            List<String> messages = new ArrayList<>();
            Queue<String> queue = received.get(name);
            for (String m = queue.poll(); m != null; m = queue.poll()) {
                messages.add(m);
            }
            delivered.put(name, messages);
        });
        return delivered;
    }

    private void remember(String line) {
        history.addLast(line);
        if (history.size() > HISTORY) {
            history.removeFirst();
        }
    }

    private String report(int index, List<String> argv, Object realReply, Candidate closest, long t0, long t1,
            long dumpTime) {
        StringBuilder text = new StringBuilder("Model and Redis ").append(majorVersion).append(" differ, seed ")
                .append(seed).append(", step ").append(index).append(":\n  ").append(abbreviate(argv))
                .append("\n  real:  ").append(Comparison.show(realReply))
                .append("\n  model: ").append(Comparison.show(closest.reply))
                .append("\n  window ").append(t0).append("..").append(t1).append(", state read at ").append(dumpTime);
        closest.comparison.differences().forEach(d -> text.append("\n  - ").append(d));
        text.append("\n  after:");
        history.forEach(h -> text.append("\n    ").append(h.length() > 300 ? h.substring(0, 300) + "..." : h));
        return text.toString();
    }

    private static String abbreviate(List<String> argv) {
        List<String> shown = new ArrayList<>();
        argv.forEach(a -> shown.add(a.length() > 60 ? a.substring(0, 40) + "...(" + a.length() + " chars)" : a));
        return shown.toString();
    }
}
