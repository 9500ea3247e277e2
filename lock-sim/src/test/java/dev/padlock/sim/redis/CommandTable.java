package dev.padlock.sim.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The commands {@link ModelRedis} knows, each with Redis's arity (n: exactly n words, -n: at
 * least n, the name included), and the dispatch that checks name and arity as Redis's
 * {@code processCommand} and a script's {@code redis.call} do, with the error texts of the
 * model's major version.
 */
final class CommandTable {

    /** Runs one command whose name and arity were checked; {@code argv.get(0)} is its name. */
    @FunctionalInterface
    interface Handler {
        Object run(ModelRedis redis, List<String> argv);
    }

    /**
     * One command.
     *
     * @param arity Redis's arity on Redis 7
     * @param arity6 Redis's arity on Redis 6 (the same unless an option was added in 7)
     * @param since the first major version that has it
     * @param noScript whether scripts may not call it
     */
    record Command(String name, int arity, int arity6, int since, boolean noScript, Handler handler) {

        int arity(int majorVersion) {
            return majorVersion >= 7 ? arity : arity6;
        }

        boolean arityMatches(int argc, int majorVersion) {
            int a = arity(majorVersion);
            return a > 0 ? argc == a : argc >= -a;
        }
    }

    private static final Map<String, Command> COMMANDS = new HashMap<>();

    static {
        KeyCommands.register();
        HashCommands.register();
        ListCommands.register();
        ZSetCommands.register();
        ServerCommands.register();
    }

    private CommandTable() {
    }

    static void add(String name, int arity, Handler handler) {
        add(new Command(name, arity, arity, 6, false, handler));
    }

    static void add(Command command) {
        if (COMMANDS.putIfAbsent(command.name(), command) != null) {
            throw new IllegalStateException("registered twice: " + command.name());
        }
    }

    /** Whether the model has {@code name} (any case) on {@code majorVersion}. */
    static boolean knows(String name, int majorVersion) {
        Command command = COMMANDS.get(name.toLowerCase(Locale.ROOT));
        return command != null && command.since() <= majorVersion;
    }

    /**
     * Looks the command up, checks its arity and runs it.
     *
     * @param fromScript whether a script calls it: other error texts, and noscript commands refused
     * @throws ModelRedisException the error reply
     */
    static Object dispatch(ModelRedis redis, List<String> argv, boolean fromScript) {
        String name = argv.get(0).toLowerCase(Locale.ROOT);
        int version = redis.majorVersion();
        Command command = COMMANDS.get(name);
        if (command == null || command.since() > version) {
            throw new ModelRedisException(fromScript ? scriptError(version, "Unknown Redis command called from")
                    : unknownCommand(argv, version));
        }
        if (!command.arityMatches(argv.size(), version)) {
            throw new ModelRedisException(fromScript
                    ? scriptError(version, version >= 7 ? "Wrong number of args calling Redis command from"
                            : "Wrong number of args calling Redis command From")
                    : wrongArity(name));
        }
        if (fromScript && command.noScript()) {
            throw new ModelRedisException(version >= 7 ? "ERR This Redis command is not allowed from script"
                    : "ERR This Redis command is not allowed from scripts");
        }
        return command.handler().run(redis, argv);
    }

    static ModelRedisException arityError(List<String> argv) {
        return new ModelRedisException(wrongArity(argv.get(0).toLowerCase(Locale.ROOT)));
    }

    private static String wrongArity(String name) {
        return "ERR wrong number of arguments for '" + name + "' command";
    }

    private static String scriptError(int version, String text) {
        return "ERR " + text + (version >= 7 ? " script" : " Lua script");
    }

    private static String unknownCommand(List<String> argv, int version) {
        String quote = version >= 7 ? "'" : "`";
        StringBuilder text = new StringBuilder("ERR unknown command ").append(quote).append(argv.get(0))
                .append(quote).append(", with args beginning with: ");
        for (String arg : argv.subList(1, argv.size())) {
            text.append(quote).append(arg).append(quote).append(version >= 7 ? " " : ", ");
        }
        return text.toString();
    }
}
