package dev.padlock.sim.redis;

import static dev.padlock.sim.redis.CommandTable.add;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * TIME, PING, ECHO, PUBLISH, SPUBLISH, PUBSUB NUMSUB and SHARDNUMSUB, WAIT, and the scripting
 * commands EVAL, EVALSHA and SCRIPT.
 */
final class ServerCommands {

    private ServerCommands() {
    }

    static void register() {
        add("time", 1, (r, a) -> {
            long now = r.now();
            return new ArrayList<Object>(List.of(Long.toString(Math.floorDiv(now, 1000)),
                    Long.toString(Math.floorMod(now, 1000) * 1000L)));
        });
        add("ping", -1, (r, a) -> {
            if (a.size() > 2) {
                throw CommandTable.arityError(a);
            }
            return a.size() == 2 ? a.get(1) : new Status("PONG");
        });
        add("echo", 2, (r, a) -> a.get(1));
        add("publish", 3, (r, a) -> r.pubSub().publish(a.get(1), a.get(2)));
        // one shard: subscribers of SSUBSCRIBE and SUBSCRIBE are the same to the model
        add(new CommandTable.Command("spublish", 3, 3, 7, false, (r, a) -> r.pubSub().publish(a.get(1), a.get(2))));
        add("pubsub", -2, ServerCommands::pubsub);
        add(new CommandTable.Command("wait", 3, 3, 6, true, (r, a) -> {
            RedisNumbers.requireLong(a.get(1));
            Long timeout = RedisNumbers.parseLong(a.get(2));
            if (timeout == null) {
                throw new ModelRedisException("ERR timeout is not an integer or out of range");
            }
            if (timeout < 0) {
                throw new ModelRedisException("ERR timeout is negative");
            }
            return 0L; // no replicas
        }));
        add(new CommandTable.Command("eval", -3, -3, 6, true, (r, a) -> eval(r, a, false)));
        add(new CommandTable.Command("evalsha", -3, -3, 6, true, (r, a) -> eval(r, a, true)));
        add(new CommandTable.Command("script", -2, -2, 6, true, ServerCommands::script));
    }

    /** PUBSUB NUMSUB and SHARDNUMSUB (one shard: the same subscribers): channel, count, ... */
    private static Object pubsub(ModelRedis r, List<String> a) {
        String sub = a.get(1).toLowerCase(Locale.ROOT);
        if (!sub.equals("numsub") && !sub.equals("shardnumsub")) {
            throw new ModelRedisException("ERR unknown subcommand '" + a.get(1) + "'. Try PUBSUB HELP.");
        }
        if (sub.equals("shardnumsub") && r.majorVersion() < 7) {
            throw new ModelRedisException("ERR unknown subcommand '" + a.get(1) + "'. Try PUBSUB HELP.");
        }
        List<Object> reply = new ArrayList<>();
        for (String channel : a.subList(2, a.size())) {
            reply.add(channel);
            reply.add(r.pubSub().subscriberCount(channel));
        }
        return reply;
    }

    private static Object eval(ModelRedis r, List<String> a, boolean bySha) {
        if (bySha && a.get(1).length() != 40) {
            throw new ModelRedisException(ModelRedisException.NOSCRIPT);
        }
        long numkeys = RedisNumbers.requireLong(a.get(2));
        if (numkeys > a.size() - 3) {
            throw new ModelRedisException("ERR Number of keys can't be greater than number of args");
        }
        if (numkeys < 0) {
            throw new ModelRedisException("ERR Number of keys can't be negative");
        }
        List<String> keys = a.subList(3, 3 + (int) numkeys);
        List<String> args = a.subList(3 + (int) numkeys, a.size());
        LuaScripting scripting = r.scripting();
        String sha = bySha ? a.get(1).toLowerCase(Locale.ROOT) : scripting.load(a.get(1));
        return scripting.run(sha, keys, args);
    }

    private static Object script(ModelRedis r, List<String> a) {
        String sub = a.get(1).toLowerCase(Locale.ROOT);
        LuaScripting scripting = r.scripting();
        switch (sub) {
            case "load" -> {
                requireArgs(r, a, a.size() == 3);
                return scripting.load(a.get(2));
            }
            case "exists" -> {
                requireArgs(r, a, a.size() >= 3);
                List<Object> reply = new ArrayList<>();
                for (String sha : a.subList(2, a.size())) {
                    reply.add(scripting.exists(sha.toLowerCase(Locale.ROOT)) ? 1L : 0L);
                }
                return reply;
            }
            case "flush" -> {
                requireArgs(r, a, a.size() <= 3);
                if (a.size() == 3 && !a.get(2).equalsIgnoreCase("async") && !a.get(2).equalsIgnoreCase("sync")) {
                    throw new ModelRedisException("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                }
                scripting.flush();
                return Status.OK;
            }
            case "kill" -> {
                requireArgs(r, a, a.size() == 2);
                throw new ModelRedisException("NOTBUSY No scripts in execution right now.");
            }
            default -> throw unknownSubcommand(r, a);
        }
    }

    private static void requireArgs(ModelRedis r, List<String> a, boolean ok) {
        if (!ok) {
            if (r.majorVersion() >= 7) {
                throw new ModelRedisException("ERR wrong number of arguments for 'script|"
                        + a.get(1).toLowerCase(Locale.ROOT) + "' command");
            }
            throw unknownSubcommand(r, a);
        }
    }

    private static ModelRedisException unknownSubcommand(ModelRedis r, List<String> a) {
        return new ModelRedisException(r.majorVersion() >= 7
                ? "ERR unknown subcommand '" + a.get(1) + "'. Try SCRIPT HELP."
                : "ERR Unknown subcommand or wrong number of arguments for '" + a.get(1) + "'. Try SCRIPT HELP.");
    }
}
