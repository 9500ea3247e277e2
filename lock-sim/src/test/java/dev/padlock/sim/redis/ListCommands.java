package dev.padlock.sim.redis;

import static dev.padlock.sim.redis.CommandTable.add;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Lists: RPUSH, LPUSH, LPOP, RPOP, LINDEX, LRANGE, LLEN, LREM, LPOS. */
final class ListCommands {

    private ListCommands() {
    }

    static void register() {
        add("rpush", -3, (r, a) -> push(r, a, false));
        add("lpush", -3, (r, a) -> push(r, a, true));
        add("lpop", -2, (r, a) -> pop(r, a, true));
        add("rpop", -2, (r, a) -> pop(r, a, false));
        add("lindex", 3, (r, a) -> {
            List<String> list = read(r, a.get(1)); // looked up before the index is read, as Redis does
            if (list == null) {
                return null;
            }
            long index = RedisNumbers.requireLong(a.get(2));
            long i = index < 0 ? list.size() + index : index;
            return i < 0 || i >= list.size() ? null : list.get((int) i);
        });
        add("lrange", 4, (r, a) -> {
            long start = RedisNumbers.requireLong(a.get(2));
            long stop = RedisNumbers.requireLong(a.get(3));
            List<String> list = read(r, a.get(1));
            List<Object> reply = new ArrayList<>();
            if (list != null) {
                int[] range = range(start, stop, list.size());
                for (int i = range[0]; i <= range[1]; i++) {
                    reply.add(list.get(i));
                }
            }
            return reply;
        });
        add("llen", 2, (r, a) -> {
            List<String> list = read(r, a.get(1));
            return list == null ? 0L : (long) list.size();
        });
        add("lrem", 4, ListCommands::lrem);
        add("lpos", -3, ListCommands::lpos);
    }

    @SuppressWarnings("unchecked")
    private static List<String> read(ModelRedis r, String key) {
        return r.keyspace().get(key, r.now(), ArrayList.class);
    }

    /**
     * An index range normalised as Redis's LRANGE and ZRANGE do: {start, stop} with
     * {@code stop < start} when empty.
     */
    static int[] range(long start, long stop, int length) {
        if (start < 0) {
            start += length;
        }
        if (stop < 0) {
            stop += length;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > stop || start >= length) {
            return new int[] {0, -1};
        }
        if (stop >= length) {
            stop = length - 1L;
        }
        return new int[] {(int) start, (int) stop};
    }

    private static Object push(ModelRedis r, List<String> a, boolean head) {
        List<String> list = read(r, a.get(1));
        if (list == null) {
            list = new ArrayList<>();
            r.keyspace().put(a.get(1), list);
        }
        for (String value : a.subList(2, a.size())) {
            if (head) {
                list.add(0, value);
            } else {
                list.add(value);
            }
        }
        return (long) list.size();
    }

    private static Object pop(ModelRedis r, List<String> a, boolean head) {
        if (a.size() > 3) {
            throw CommandTable.arityError(a);
        }
        boolean hasCount = a.size() == 3;
        long count = hasCount ? RedisNumbers.requireNonNegative(a.get(2), "value is out of range, must be positive") : 0;
        List<String> list = read(r, a.get(1));
        if (list == null) {
            return null;
        }
        if (!hasCount) {
            String value = head ? list.remove(0) : list.remove(list.size() - 1);
            r.keyspace().removeIfEmpty(a.get(1));
            return value;
        }
        List<Object> reply = new ArrayList<>();
        for (long i = 0; i < count && !list.isEmpty(); i++) {
            reply.add(head ? list.remove(0) : list.remove(list.size() - 1));
        }
        r.keyspace().removeIfEmpty(a.get(1));
        return reply;
    }

    private static Object lrem(ModelRedis r, List<String> a) {
        long count = RedisNumbers.requireLong(a.get(2));
        List<String> list = read(r, a.get(1));
        if (list == null) {
            return 0L;
        }
        String element = a.get(3);
        long removed = 0;
        if (count >= 0) {
            for (int i = 0; i < list.size() && (count == 0 || removed < count);) {
                if (list.get(i).equals(element)) {
                    list.remove(i);
                    removed++;
                } else {
                    i++;
                }
            }
        } else {
            for (int i = list.size() - 1; i >= 0 && removed < -count; i--) {
                if (list.get(i).equals(element)) {
                    list.remove(i);
                    removed++;
                }
            }
        }
        r.keyspace().removeIfEmpty(a.get(1));
        return removed;
    }

    /** LPOS key element [RANK rank] [COUNT count] [MAXLEN len], as t_list.c's lposCommand. */
    private static Object lpos(ModelRedis r, List<String> a) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < a.size(); j++) {
            String opt = a.get(j).toUpperCase(Locale.ROOT);
            boolean more = j + 1 < a.size();
            if (opt.equals("RANK") && more) {
                rank = RedisNumbers.requireLong(a.get(++j));
                if (rank == 0) {
                    throw new ModelRedisException("ERR RANK can't be zero: use 1 to start from the first match, "
                            + "2 from the second ... or use negative to start from the end of the list");
                }
            } else if (opt.equals("COUNT") && more) {
                count = RedisNumbers.requireNonNegative(a.get(++j), "COUNT can't be negative");
            } else if (opt.equals("MAXLEN") && more) {
                maxlen = RedisNumbers.requireNonNegative(a.get(++j), "MAXLEN can't be negative");
            } else {
                throw ModelRedisException.syntax();
            }
        }
        boolean fromTail = rank < 0;
        rank = Math.abs(rank);
        List<String> list = read(r, a.get(1));
        if (list == null) {
            return count != -1 ? new ArrayList<>() : null;
        }
        List<Object> matches = new ArrayList<>();
        long seen = 0;
        int n = list.size();
        for (int index = 0; index < n && (maxlen == 0 || index < maxlen); index++) {
            int position = fromTail ? n - 1 - index : index;
            if (list.get(position).equals(a.get(2))) {
                seen++;
                if (seen >= rank) {
                    matches.add((long) position);
                    if (count == -1 || (count != 0 && matches.size() >= count)) {
                        break;
                    }
                }
            }
        }
        if (count != -1) {
            return matches;
        }
        return matches.isEmpty() ? null : matches.get(0);
    }
}
