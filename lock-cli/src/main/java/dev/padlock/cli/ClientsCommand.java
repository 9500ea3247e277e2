package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
            List<Map<String, Object>> clients = new ArrayList<>();
            for (String key : redis.scan(LockKeys.CLIENT_PREFIX + "*", "hash", 100_000)) {
                Map<String, String> entry = redis.await(redis.commands().hgetall(key), "HGETALL " + key);
                if (entry.isEmpty()) {
                    continue; // expired between SCAN and HGETALL
                }
                Map<String, Object> client = new LinkedHashMap<>(entry);
                client.put("ttlMillis", redis.await(redis.commands().pttl(key), "PTTL " + key));
                clients.add(client);
            }
            clients.sort((a, b) -> String.valueOf(a.get("started")).compareTo(String.valueOf(b.get("started"))));
            if (top.json) {
                top.out().println(Json.write(clients));
            } else if (clients.isEmpty()) {
                top.out().println("no client in the registry");
            } else {
                top.out().printf("%-36s  %-20s %-20s %8s  %-15s %s%n", "ID", "APPLICATION", "HOST", "PID", "VERSION", "STARTED");
                for (Map<String, Object> c : clients) {
                    top.out().printf("%-36s  %-20s %-20s %8s  %-15s %s%n", c.get("id"), c.get("application"), c.get("host"),
                            c.get("pid"), c.get("version"), started(c));
                }
            }
            top.out().flush();
            return 0;
        }
    }

    private static String started(Map<String, Object> client) {
        try {
            return Text.time(Long.parseLong(String.valueOf(client.get("started"))));
        } catch (NumberFormatException e) {
            return "?";
        }
    }
}
