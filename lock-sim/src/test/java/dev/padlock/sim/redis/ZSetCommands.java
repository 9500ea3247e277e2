package dev.padlock.sim.redis;

import static dev.padlock.sim.redis.CommandTable.add;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Sorted sets: ZADD, ZSCORE, ZREM, ZCARD, ZRANGE (by index or BYSCORE, REV, LIMIT, WITHSCORES), ZRANGEBYSCORE. */
final class ZSetCommands {

    private ZSetCommands() {
    }

    static void register() {
        add("zadd", -4, ZSetCommands::zadd);
        add("zscore", 3, (r, a) -> {
            ZSet zset = read(r, a.get(1));
            Double score = zset == null ? null : zset.score(a.get(2));
            return score == null ? null : RedisNumbers.formatDouble(score);
        });
        add("zrem", -3, (r, a) -> {
            ZSet zset = read(r, a.get(1));
            if (zset == null) {
                return 0L;
            }
            long removed = a.subList(2, a.size()).stream().filter(zset::remove).count();
            r.keyspace().removeIfEmpty(a.get(1));
            return removed;
        });
        add("zcard", 2, (r, a) -> {
            ZSet zset = read(r, a.get(1));
            return zset == null ? 0L : (long) zset.size();
        });
        add("zrange", -4, (r, a) -> zrange(r, a, false));
        add("zrangebyscore", -4, (r, a) -> zrange(r, a, true));
    }

    private static ZSet read(ModelRedis r, String key) {
        return r.keyspace().get(key, r.now(), ZSet.class);
    }

    /** ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ..., as t_zset.c's zaddGenericCommand. */
    private static Object zadd(ModelRedis r, List<String> a) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = false;
        int scoreIndex = 2;
        for (; scoreIndex < a.size(); scoreIndex++) {
            switch (a.get(scoreIndex).toLowerCase(Locale.ROOT)) {
                case "nx" -> nx = true;
                case "xx" -> xx = true;
                case "gt" -> gt = true;
                case "lt" -> lt = true;
                case "ch" -> ch = true;
                case "incr" -> incr = true;
                default -> {
                    return zaddPairs(r, a, scoreIndex, nx, xx, gt, lt, ch, incr);
                }
            }
        }
        throw ModelRedisException.syntax();
    }

    private static Object zaddPairs(ModelRedis r, List<String> a, int scoreIndex, boolean nx, boolean xx,
            boolean gt, boolean lt, boolean ch, boolean incr) {
        int elements = a.size() - scoreIndex;
        if (elements % 2 != 0 || elements == 0) {
            throw ModelRedisException.syntax();
        }
        elements /= 2;
        if (nx && xx) {
            throw new ModelRedisException("ERR XX and NX options at the same time are not compatible");
        }
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            throw new ModelRedisException("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 1) {
            throw new ModelRedisException("ERR INCR option supports a single increment-element pair");
        }
        double[] scores = new double[elements];
        for (int j = 0; j < elements; j++) {
            Double score = RedisNumbers.parseDouble(a.get(scoreIndex + 2 * j));
            if (score == null) {
                throw new ModelRedisException("ERR value is not a valid float");
            }
            scores[j] = score;
        }
        String key = a.get(1);
        ZSet zset = read(r, key);
        if (zset == null) {
            if (xx) {
                return incr ? null : 0L;
            }
            zset = new ZSet();
            r.keyspace().put(key, zset);
        }
        long added = 0;
        long updated = 0;
        Double last = null;
        for (int j = 0; j < elements; j++) {
            String member = a.get(scoreIndex + 2 * j + 1);
            double score = scores[j];
            Double current = zset.score(member);
            if (current != null) {
                if (nx) {
                    continue;
                }
                if (incr) {
                    score += current;
                    if (Double.isNaN(score)) {
                        r.keyspace().removeIfEmpty(key);
                        throw new ModelRedisException("ERR resulting score is not a number (NaN)");
                    }
                }
                if ((lt && score >= current) || (gt && score <= current)) {
                    continue;
                }
                last = score;
                if (score != current) {
                    zset.put(member, score);
                    updated++;
                }
            } else if (!xx) {
                zset.put(member, score);
                added++;
                last = score;
            }
        }
        if (incr) {
            return last == null ? null : RedisNumbers.formatDouble(last);
        }
        return ch ? added + updated : added;
    }

    private static Object zrange(ModelRedis r, List<String> a, boolean byScoreCommand) {
        boolean withScores = false;
        boolean reverse = false;
        boolean byScore = byScoreCommand;
        boolean limited = false;
        long offset = 0;
        long limit = -1;
        for (int j = 4; j < a.size(); j++) {
            String opt = a.get(j).toLowerCase(Locale.ROOT);
            if (opt.equals("withscores")) {
                withScores = true;
            } else if (opt.equals("limit") && a.size() - j - 1 >= 2) {
                offset = RedisNumbers.requireLong(a.get(j + 1));
                limit = RedisNumbers.requireLong(a.get(j + 2));
                limited = true;
                j += 2;
            } else if (!byScoreCommand && !reverse && opt.equals("rev")) {
                reverse = true;
            } else if (!byScoreCommand && !byScore && opt.equals("byscore")) {
                byScore = true;
            } else if (!byScoreCommand && opt.equals("bylex")) {
                throw new UnsupportedOperationException("ModelRedis has no ZRANGE BYLEX");
            } else {
                throw ModelRedisException.syntax();
            }
        }
        if (limited && limit != -1 && !byScore) {
            throw new ModelRedisException(
                    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        List<ZSet.Member> selected;
        if (byScore) {
            ScoreBound min = ScoreBound.parse(a.get(reverse ? 3 : 2));
            ScoreBound max = ScoreBound.parse(a.get(reverse ? 2 : 3));
            ZSet zset = read(r, a.get(1));
            selected = new ArrayList<>();
            if (zset != null) {
                List<ZSet.Member> members = zset.members();
                if (reverse) {
                    Collections.reverse(members);
                }
                for (ZSet.Member m : members) {
                    if (min.allowsAbove(m.score()) && max.allowsBelow(m.score())) {
                        selected.add(m);
                    }
                }
                selected = limit(selected, offset, limit);
            }
        } else {
            long start = RedisNumbers.requireLong(a.get(2));
            long stop = RedisNumbers.requireLong(a.get(3));
            ZSet zset = read(r, a.get(1));
            selected = new ArrayList<>();
            if (zset != null) {
                List<ZSet.Member> members = zset.members();
                if (reverse) {
                    Collections.reverse(members);
                }
                int[] range = ListCommands.range(start, stop, members.size());
                selected = range[1] < range[0] ? List.of() : members.subList(range[0], range[1] + 1);
            }
        }
        List<Object> reply = new ArrayList<>();
        for (ZSet.Member m : selected) {
            reply.add(m.name());
            if (withScores) {
                reply.add(RedisNumbers.formatDouble(m.score()));
            }
        }
        return reply;
    }

    private static List<ZSet.Member> limit(List<ZSet.Member> members, long offset, long limit) {
        if (offset < 0) {
            return List.of(); // Redis's "while (offset--)" skips everything
        }
        int from = (int) Math.min(offset, members.size());
        int to = limit < 0 ? members.size() : (int) Math.min(members.size(), from + limit);
        return members.subList(from, to);
    }

    /** One end of a score range: {@code (x} excludes x; {@code -inf}, {@code +inf} allowed. */
    private record ScoreBound(double value, boolean exclusive) {

        static ScoreBound parse(String text) {
            boolean exclusive = text.startsWith("(");
            String number = (exclusive ? text.substring(1) : text).stripLeading();
            Double value = number.isEmpty() ? Double.valueOf(0) : RedisNumbers.parseDouble(number);
            if (value == null) {
                throw new ModelRedisException("ERR min or max is not a float");
            }
            return new ScoreBound(value, exclusive);
        }

        boolean allowsAbove(double score) {
            return exclusive ? score > value : score >= value;
        }

        boolean allowsBelow(double score) {
            return exclusive ? score < value : score <= value;
        }
    }
}
