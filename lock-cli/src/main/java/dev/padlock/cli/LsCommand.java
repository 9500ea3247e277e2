package dev.padlock.cli;

import dev.padlock.spi.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code padlock ls [PATTERN]}: the held locks whose names match, one line each. SCAN (never
 * KEYS) over hashes, across every master on a Cluster; a hash counts as a lock when every field
 * is an owner field ({@code <clientId>:<threadId>}, a writer's {@code ...:write}) or a read-write
 * lock's {@code mode}.
 */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = "List held locks whose names match PATTERN (SCAN MATCH syntax, default *), one line each.")
final class LsCommand implements Callable<Integer> {
    /** Padlock's and Redisson's own hashes that are not locks. */
    private static final Set<String> NOT_LOCKS = Set.of(LockKeys.CLIENT_PREFIX, "padlock_since:");

    @ParentCommand
    PadlockCommand top;

    @Parameters(paramLabel = "PATTERN", defaultValue = "*", arity = "0..1",
            description = "A SCAN MATCH glob, e.g. 'orders:*'. Default: ${DEFAULT-VALUE}.")
    String pattern;

    @Option(names = "--limit", defaultValue = "1000", paramLabel = "N",
            description = "List at most N locks. Default: ${DEFAULT-VALUE}.")
    int limit;

    @Override
    public Integer call() {
        try (Connection redis = top.connect()) {
            LockInspector inspector = new LockInspector(redis);
            List<LockView> locks = new ArrayList<>();
            for (String key : redis.scan(pattern, "hash", Integer.MAX_VALUE)) {
                if (locks.size() >= limit) {
                    break;
                }
                if (NOT_LOCKS.stream().anyMatch(key::startsWith)) {
                    continue;
                }
                LockView view = inspector.inspect(key);
                if (view.held() && view.holders().stream().allMatch(h -> h.threadId() >= 0)) {
                    locks.add(view);
                }
            }
            locks.sort((a, b) -> a.name().compareTo(b.name()));
            if (top.json) {
                top.out().println(Json.write(locks.stream().map(LockView::toMap).toList()));
            } else if (locks.isEmpty()) {
                top.out().println("no held lock matches " + pattern);
            } else {
                for (LockView view : locks) {
                    top.out().println(line(view));
                }
            }
            top.out().flush();
            return 0;
        }
    }

    /** {@code NAME  KIND  TTL  first holder (client, thread, since)  +N more, W waiting}. */
    private static String line(LockView view) {
        LockView.Holder first = view.holders().get(0);
        String who = first.client() == null ? "unknown client"
                : first.client().getOrDefault("application", "?") + "@" + first.client().getOrDefault("host", "?")
                        + " pid " + first.client().getOrDefault("pid", "?");
        String since = first.sinceMillis() == null ? "" : ", held " + Text.duration(view.nowMillis() - first.sinceMillis());
        String more = view.holders().size() > 1 ? " +" + (view.holders().size() - 1) + " more" : "";
        String waiting = view.queue().isEmpty() ? "" : ", " + view.queue().size() + " queued";
        return String.format("%-40s %-10s TTL %-10s %s (%s, thread %d%s)%s%s", view.name(),
                view.kind() + (view.mode() != null ? "/" + view.mode() : ""), Text.ttl(view.ttlMillis()),
                first.role(), who, first.threadId(), since, more, waiting);
    }
}
