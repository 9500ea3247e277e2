package dev.padlock.bench;

import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;

/**
 * What the server has done so far: calls per command ({@code INFO commandstats}, which counts
 * the {@code redis.call}s inside scripts too) and CPU seconds ({@code used_cpu_sys} +
 * {@code used_cpu_user} of {@code INFO cpu}). Immutable.
 */
final class ServerSnapshot {

    private static final String[] SUBSCRIPTION_COMMANDS = {
        "subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "psubscribe", "punsubscribe"};

    private final CommandStats commands;
    private final double cpuSeconds;

    private ServerSnapshot(CommandStats commands, double cpuSeconds) {
        this.commands = commands;
        this.cpuSeconds = cpuSeconds;
    }

    static ServerSnapshot take(RedisAdmin admin) {
        CommandStats commands = admin.commandStats();
        double cpu = Double.parseDouble(admin.infoField("cpu", "used_cpu_sys"))
                + Double.parseDouble(admin.infoField("cpu", "used_cpu_user"));
        return new ServerSnapshot(commands, cpu);
    }

    /** The server's work from {@code before} to {@code after}, per acquisition. */
    static ServerCost cost(ServerSnapshot before, ServerSnapshot after, long acquisitions) {
        CommandStats delta = CommandStats.delta(before.commands, after.commands).without("info");
        long subscriptions = 0;
        for (String command : SUBSCRIPTION_COMMANDS) {
            subscriptions += delta.calls(command);
        }
        double cpuMillis = (after.cpuSeconds - before.cpuSeconds) * 1000;
        return new ServerCost(acquisitions, (double) delta.total() / acquisitions,
                (double) subscriptions / acquisitions, cpuMillis * 1000 / acquisitions, delta);
    }
}
