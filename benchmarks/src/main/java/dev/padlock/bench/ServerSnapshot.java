package dev.padlock.bench;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the servers have done so far, each master of a cluster on its own: calls per command
 * ({@code INFO commandstats}, which counts the {@code redis.call}s inside scripts too) and CPU
 * seconds ({@code used_cpu_sys} + {@code used_cpu_user} of {@code INFO cpu}). Immutable.
 */
final class ServerSnapshot {

    private static final String[] SUBSCRIPTION_COMMANDS = {
        "subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "psubscribe", "punsubscribe"};

    /** One entry per server, in the order of the admin connections. */
    private final List<CommandStats> commands;
    private final double cpuSeconds;

    private ServerSnapshot(List<CommandStats> commands, double cpuSeconds) {
        this.commands = List.copyOf(commands);
        this.cpuSeconds = cpuSeconds;
    }

    /** A snapshot of every server behind {@code admins}; their CPU is summed. */
    static ServerSnapshot take(List<RedisAdmin> admins) {
        List<CommandStats> commands = new ArrayList<>();
        double cpu = 0;
        for (RedisAdmin admin : admins) {
            commands.add(admin.commandStats());
            cpu += Double.parseDouble(admin.infoField("cpu", "used_cpu_sys"))
                    + Double.parseDouble(admin.infoField("cpu", "used_cpu_user"));
        }
        return new ServerSnapshot(commands, cpu);
    }

    /** The servers' work from {@code before} to {@code after}, summed over them, per acquisition. */
    static ServerCost cost(ServerSnapshot before, ServerSnapshot after, long acquisitions) {
        if (before.commands.size() != after.commands.size()) {
            throw new IllegalArgumentException("Snapshots of " + before.commands.size() + " and "
                    + after.commands.size() + " servers");
        }
        Map<String, Long> calls = new TreeMap<>();
        for (int i = 0; i < before.commands.size(); i++) {
            CommandStats.delta(before.commands.get(i), after.commands.get(i)).without("info").asMap()
                    .forEach((command, count) -> calls.merge(command, count, Long::sum));
        }
        long total = calls.values().stream().mapToLong(Long::longValue).sum();
        long subscriptions = 0;
        for (String command : SUBSCRIPTION_COMMANDS) {
            subscriptions += calls.getOrDefault(command, 0L);
        }
        double cpuMillis = (after.cpuSeconds - before.cpuSeconds) * 1000;
        if (System.getenv("PADLOCK_BENCH_COMMANDS") != null) {
            // a developer's aid: where the calls per acquisition go, command by command
            StringBuilder line = new StringBuilder("      calls / acquisition by command:");
            calls.forEach((command, count) -> line.append(String.format(" %s %.2f", command, (double) count / acquisitions)));
            System.out.println(line);
        }
        return new ServerCost(acquisitions, (double) total / acquisitions,
                (double) subscriptions / acquisitions, cpuMillis * 1000 / acquisitions, calls);
    }
}
