package dev.padlock.sim.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * One step of the differential test compared: the replies, the messages each subscriber got, and
 * the key space after it (type, value, PTTL of every live key). Exact, except where real time
 * gets in: durations (PTTLs, and script replies made of them) within {@value #DURATION_TOLERANCE}
 * ms, values that look like epoch ms (13 digits) or µs (16 digits, fencing tokens) within the same
 * time, and a key whose expiry is within {@value #PRESENCE_SLACK} ms
 * may be gone on one side only. Error replies are compared by their first word (the rest of a
 * script's error names lines and versions). {@link #metric()} says how far apart the sides are
 * within those tolerances: the test keeps the model run closest to the real server.
 */
final class Comparison {

    static final long DURATION_TOLERANCE = 250;
    static final long PRESENCE_SLACK = 25;
    private static final Pattern EPOCH_MILLIS = Pattern.compile("1\\d{12}");
    private static final Pattern EPOCH_MICROS = Pattern.compile("1\\d{15}");

    /** A key as either side shows it: its type, PTTL and value flattened to strings. */
    record Key(String type, long pttl, List<String> value) {
    }

    private final List<String> differences = new ArrayList<>();
    private long metric;
    /** The largest PTTL difference seen among keys on both sides. */
    private long largestPttlGap;

    boolean agrees() {
        return differences.isEmpty();
    }

    List<String> differences() {
        return differences;
    }

    long metric() {
        return metric;
    }

    long largestPttlGap() {
        return largestPttlGap;
    }

    /** The keys of the real server's dump: {sec, usec, {key, type, pttl, {values}}...}. */
    static Map<String, Key> fromDump(List<?> dump) {
        Map<String, Key> keys = new TreeMap<>();
        for (Object item : dump.subList(2, dump.size())) {
            List<?> k = (List<?>) item;
            List<String> value = new ArrayList<>();
            for (Object v : (List<?>) k.get(3)) {
                value.add((String) v);
            }
            keys.put((String) k.get(0), new Key((String) k.get(1), (Long) k.get(2), value));
        }
        return keys;
    }

    static Map<String, Key> fromModel(Map<String, ModelRedis.Entry> snapshot) {
        Map<String, Key> keys = new TreeMap<>();
        snapshot.forEach((name, entry) -> {
            List<String> value = new ArrayList<>();
            Object v = entry.value();
            if (v instanceof String s) {
                value.add(s);
            } else if (v instanceof List<?> list) {
                list.forEach(e -> value.add((String) e));
            } else if (entry.type().equals("zset")) {
                ((Map<?, ?>) v).forEach((m, s) -> {
                    value.add((String) m);
                    value.add(RedisNumbers.formatDouble((Double) s));
                });
            } else {
                ((Map<?, ?>) v).forEach((f, s) -> {
                    value.add((String) f);
                    value.add((String) s);
                });
            }
            keys.put(name, new Key(entry.type(), entry.pttl(), value));
        });
        return keys;
    }

    void replies(Workload.Check check, Object real, Object model) {
        if (check == Workload.Check.SORTED && real instanceof List<?> r && model instanceof List<?> m) {
            real = sorted(r);
            model = sorted(m);
        }
        if (check == Workload.Check.TIME && real instanceof List<?> r && model instanceof List<?> m
                && r.size() == 2 && m.size() == 2) {
            long gap = Math.abs(micros(r) - micros(m)) / 1000;
            if (gap > DURATION_TOLERANCE) {
                differences.add("TIME differs by " + gap + " ms: real " + r + ", model " + m);
            }
            metric += gap;
            return;
        }
        value("reply", check, real, model);
    }

    /** DBSIZE: the real count lies between the keys surely alive and the keys the model still stores. */
    void dbsize(Object real, long surelyAlive, long stored) {
        if (!(real instanceof Long n) || n < surelyAlive || n > stored + 2) {
            differences.add("DBSIZE: real " + real + ", model between " + surelyAlive + " and " + stored);
        }
    }

    void deliveries(String subscriber, List<String> real, List<String> model) {
        if (!real.equals(model)) {
            differences.add("messages to " + subscriber + ": real " + real + ", model " + model);
        }
    }

    void keys(Map<String, Key> real, Map<String, Key> model) {
        TreeSet<String> names = new TreeSet<>(real.keySet());
        names.addAll(model.keySet());
        for (String name : names) {
            Key r = real.get(name);
            Key m = model.get(name);
            if (r == null || m == null) {
                Key only = r == null ? m : r;
                if (only.pttl() >= 0 && only.pttl() <= PRESENCE_SLACK) {
                    metric += 100; // at its expiry: gone on one side a moment earlier
                } else {
                    differences.add("key " + name + " only in " + (r == null ? "model" : "real") + ": " + only);
                }
                continue;
            }
            if (!r.type().equals(m.type())) {
                differences.add("key " + name + " type: real " + r.type() + ", model " + m.type());
                continue;
            }
            if ((r.pttl() == -1) != (m.pttl() == -1)) {
                differences.add("key " + name + " pttl: real " + r.pttl() + ", model " + m.pttl());
            } else if (r.pttl() >= 0) {
                long gap = Math.abs(r.pttl() - m.pttl());
                largestPttlGap = Math.max(largestPttlGap, gap);
                metric += gap;
                if (gap > DURATION_TOLERANCE) {
                    differences.add("key " + name + " pttl: real " + r.pttl() + ", model " + m.pttl());
                }
            }
            value("key " + name, Workload.Check.EXACT, r.value(), m.value());
        }
    }

    private void value(String where, Workload.Check check, Object real, Object model) {
        if (Objects.equals(real, model)) {
            return;
        }
        if (real instanceof RespClient.ErrorReply r && model instanceof RespClient.ErrorReply m) {
            if (!r.code().equals(m.code())) {
                differences.add(where + ": real error '" + r.text() + "', model error '" + m.text() + "'");
            }
            return;
        }
        if (real instanceof List<?> r && model instanceof List<?> m && r.size() == m.size()) {
            for (int i = 0; i < r.size(); i++) {
                value(where + "[" + i + "]", check, r.get(i), m.get(i));
            }
            return;
        }
        if (real instanceof Long r && model instanceof Long m) {
            long gap = Math.abs(r - m);
            if (check == Workload.Check.DURATION && r >= 0 && m >= 0 && gap <= DURATION_TOLERANCE) {
                metric += gap;
                return;
            }
        }
        if (real != null && model != null && nearInTime(real.toString(), model.toString())) {
            return;
        }
        differences.add(where + ": real " + show(real) + ", model " + show(model));
    }

    /** Both epoch ms, or both epoch µs, within the tolerance. */
    private boolean nearInTime(String real, String model) {
        long scale;
        if (EPOCH_MILLIS.matcher(real).matches() && EPOCH_MILLIS.matcher(model).matches()) {
            scale = 1;
        } else if (EPOCH_MICROS.matcher(real).matches() && EPOCH_MICROS.matcher(model).matches()) {
            scale = 1000;
        } else {
            return false;
        }
        long gap = Math.abs(Long.parseLong(real) - Long.parseLong(model)) / scale;
        metric += gap;
        return gap <= DURATION_TOLERANCE;
    }

    private static long micros(List<?> time) {
        return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
    }

    private static List<String> sorted(List<?> values) {
        List<String> sorted = new ArrayList<>();
        values.forEach(v -> sorted.add(String.valueOf(v)));
        sorted.sort(null);
        return sorted;
    }

    static String show(Object reply) {
        if (reply instanceof String s) {
            return '"' + s + '"';
        }
        return String.valueOf(reply);
    }
}
