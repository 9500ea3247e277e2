package dev.padlock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code padlock ls [PATTERN]}: the held locks whose names match, one line each, by SCAN (never
 * KEYS) across every master on a Cluster, over two types of key:
 * <ul>
 *   <li>hashes: a hash counts as a lock when every field is an owner field
 *       ({@code <clientId>:<ownerId>}, a thread's id or a lease's, see {@link OwnerKind}; a
 *       writer's {@code ...:write}) or a read-write lock's {@code mode}, and is held; Padlock's own
 *       hashes ({@code padlock_*}) are not looked at;</li>
 *   <li>strings: a string counts as a ShedLock lock when its value is a ShedLock token (see
 *       {@link ShedLocks}), whatever its prefix. To tell, {@code ls} reads the first
 *       {@value ShedLocks#MAX_TOKEN_LENGTH} characters and one of every string key that matches
 *       (GETRANGE, a batch at a time), except Padlock's and Redisson's own keys ({@code padlock_*},
 *       {@code redisson_*}, read lease keys).</li>
 * </ul>
 */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = "List held locks whose names match PATTERN (SCAN MATCH syntax, default *), one line each: "
                + "Padlock's (held by threads or leases) and Redisson's locks, and ShedLock's (strings holding a "
                + "holder's token, under any prefix).")
final class LsCommand implements Callable<Integer> {
    /** Padlock's own keys (the registry, since, the readers' hall...): never locks. */
    private static final List<String> PADLOCKS_OWN = List.of("padlock_");
    /** Strings of Padlock's and Redisson's own (places, gates, token counters): never ShedLock tokens. */
    private static final List<String> NOT_TOKENS = List.of("padlock_", "redisson_");
    /** How many string keys one batch of GETRANGE reads. */
    private static final int BATCH = 1000;

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
                if (PADLOCKS_OWN.stream().anyMatch(key::startsWith)) {
                    continue;
                }
                LockView view = inspector.inspect(key);
                // a hash of other fields is no lock; a lease's owner id, negative, is an owner id
                if (view.held() && view.holders().stream().allMatch(h -> h.ownerKind() != null)) {
                    locks.add(view);
                }
            }
            List<String> strings = redis.scan(pattern, "string", Integer.MAX_VALUE);
            strings.removeIf(key -> NOT_TOKENS.stream().anyMatch(key::startsWith) || key.contains(":rwlock_timeout:"));
            for (int from = 0; from < strings.size() && locks.size() < limit; from += BATCH) {
                List<String> batch = strings.subList(from, Math.min(strings.size(), from + BATCH));
                for (var head : redis.heads(batch, ShedLocks.MAX_TOKEN_LENGTH + 1).entrySet()) {
                    if (locks.size() < limit && ShedLocks.looksLikeToken(head.getValue())) {
                        LockView view = inspector.inspect(head.getKey());
                        if (view.isShedLock()) {
                            locks.add(view);
                        }
                    }
                }
            }
            locks.sort((a, b) -> a.name().compareTo(b.name()));
            if (top.json) {
                top.out().println(Json.write(locks.stream().map(LockView::toMap).toList()));
            } else if (locks.isEmpty()) {
                top.out().println("no held lock matches " + pattern);
            } else {
                Table table = new Table().column("NAME").column("KIND").column("TTL").column("HOLDER").withoutHeaders();
                for (LockView view : locks) {
                    table.row(view.name(), view.kind() + (view.mode() != null ? "/" + view.mode() : ""),
                            "TTL " + Text.ttl(view.ttlMillis()), holder(view));
                }
                top.out().print(table.render());
            }
            top.out().flush();
            return 0;
        }
    }

    /** {@code first holder (client, thread or lease, since) +N more, W waiting}. */
    private static String holder(LockView view) {
        LockView.Holder first = view.holders().get(0);
        String who = first.client() == null ? "client not in the registry"
                : first.client().getOrDefault("application", "?") + "@" + first.client().getOrDefault("host", "?")
                        + " pid " + first.client().getOrDefault("pid", "?");
        String what = first.ownerKind() != null ? ", " + first.ownerKind().describe(first.threadId())
                : view.untilMillis() != null ? ", until " + Text.time(view.untilMillis()) : "";
        String since = first.sinceMillis() == null ? "" : ", held " + Text.duration(view.nowMillis() - first.sinceMillis());
        String more = view.holders().size() > 1 ? " +" + (view.holders().size() - 1) + " more" : "";
        LockView.Waiting waiting = view.waiting();
        String waits = waiting == null || waiting.clients() == 0 ? ""
                : ", " + (waiting.owners() != null ? Text.count(waiting.owners(), "owner")
                        : Text.count(waiting.clients(), "client")) + " waiting";
        return first.role() + " (" + who + what + since + ")" + more + waits;
    }
}
