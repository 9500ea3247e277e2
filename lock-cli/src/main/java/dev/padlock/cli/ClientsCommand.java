package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code padlock clients}: the client registry, every live Padlock client that has it on. */
@Command(name = "clients", mixinStandardHelpOptions = true,
        description = "List the Padlock clients in the registry (padlock_client:*): id, application, host, pid, version, start.")
final class ClientsCommand implements Callable<Integer> {
    @ParentCommand
    PadlockCommand top;

    @Override
    public Integer call() {
        try (Connection redis = top.connect()) {
            List<Entry> clients = new ArrayList<>();
            for (String key : redis.scan(LockKeys.CLIENT_PREFIX + "*", "hash", 100_000)) {
                Map<String, String> fields = redis.await(redis.commands().hgetall(key), "HGETALL " + key);
                if (fields.isEmpty()) {
                    continue; // expired between SCAN and HGETALL
                }
                clients.add(new Entry(new TreeMap<>(fields), redis.await(redis.commands().pttl(key), "PTTL " + key)));
            }
            clients.sort(Comparator.comparingLong(c -> startedOf(c.fields())));
            if (top.json) {
                List<Map<String, Object>> json = new ArrayList<>();
                for (Entry c : clients) {
                    Map<String, Object> client = Registry.json(c.fields());
                    client.put("ttlMillis", c.ttlMillis());
                    json.add(client);
                }
                top.out().println(Json.write(json));
            } else if (clients.isEmpty()) {
                top.out().println("no client in the registry");
            } else {
                Table table = new Table().column("ID").column("APPLICATION").column("HOST").rightColumn("PID")
                        .column("VERSION").column("STARTED");
                for (Entry c : clients) {
                    Map<String, String> f = c.fields();
                    table.row(f.get("id"), f.get("application"), f.get("host"), f.get("pid"), f.get("version"), started(f));
                }
                top.out().print(table.render());
            }
            top.out().flush();
            return 0;
        }
    }

    /** One registry entry and its time to live. */
    private record Entry(Map<String, String> fields, long ttlMillis) {
    }

    /** The start time, for the order: epoch ms, unknown ones last. */
    private static long startedOf(Map<String, String> client) {
        try {
            return Long.parseLong(client.get("started"));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private static String started(Map<String, String> client) {
        long started = startedOf(client);
        return started == Long.MAX_VALUE ? "?" : Text.time(started);
    }
}
