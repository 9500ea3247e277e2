package dev.padlock.cli;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code padlock force-unlock NAME}: deletes a held lock whoever holds it, through the same
 * script as {@code RLock.forceUnlock()} of its kind, so its waiters (Padlock's and Redisson's)
 * are woken; asks first unless {@code --yes}; says what it released.
 */
@Command(name = "force-unlock", mixinStandardHelpOptions = true,
        description = "Release a lock whoever holds it, waking its waiters (as RLock.forceUnlock()); asks for "
                + "confirmation unless --yes. The holders lose it at once: use only for a holder that is gone or stuck.")
final class ForceUnlockCommand implements Callable<Integer> {
    @ParentCommand
    PadlockCommand top;

    @Parameters(paramLabel = "NAME", description = "The lock's name (its key).")
    String name;

    @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
    boolean yes;

    @Override
    public Integer call() throws IOException {
        LockView view;
        try (Connection redis = top.connect()) {
            view = new LockInspector(redis).inspect(name);
        }
        if (!view.held()) {
            report(view, false, "'" + name + "' is not held: nothing released");
            return 0;
        }
        if (view.isShedLock()) {
            // no forceUnlock() script to run: ShedLock's key has its own provider, and nobody waits on it
            top.spec.commandLine().getErr().println("'" + name + "' is a ShedLock lock: force-unlock releases "
                    + "Padlock's and Redisson's locks only; nothing released. Its key expires in "
                    + Text.ttl(view.ttlMillis()) + " (lockAtMostFor, or what is left of lockAtLeastFor)");
            top.spec.commandLine().getErr().flush();
            return 1;
        }
        if (!yes) {
            var prompt = top.json ? top.spec.commandLine().getErr() : top.out();
            if (!top.json) {
                prompt.print(ShowText.show(view));
            }
            prompt.print("Force-unlock '" + name + "' (" + view.kind() + " lock, " + view.holders().size()
                    + (view.holders().size() == 1 ? " holder" : " holders") + ")? [y/N] ");
            prompt.flush();
            String answer = top.in.readLine();
            if (answer == null || !answer.strip().toLowerCase(Locale.ROOT).matches("y|yes")) {
                top.spec.commandLine().getErr().println("not confirmed: nothing released");
                top.spec.commandLine().getErr().flush();
                return 1;
            }
        }
        boolean released;
        try (LockClient client = LockClient.create(top.config())) {
            released = lockOf(client, view).forceUnlock();
        }
        StringBuilder text = new StringBuilder();
        if (released) {
            text.append("released '").append(name).append("' (").append(view.kind()).append(" lock")
                    .append(view.mode() != null ? ", " + view.mode() + " mode" : "").append("), held by:");
            for (LockView.Holder h : view.holders()) {
                text.append(System.lineSeparator()).append("  ").append(h.role()).append(' ').append(h.field())
                        .append(", holds ").append(h.holds()).append(", ").append(Text.client(h.client()));
            }
            text.append(System.lineSeparator()).append("woke the waiters: ").append(view.listeners())
                    .append(" subscription(s) listened on its channel(s)");
        } else {
            text.append("'").append(name).append("' was released by its holder meanwhile: nothing released");
        }
        report(view, released, text.toString());
        return 0;
    }

    /** The object whose forceUnlock() runs the right script for the kind read from Redis. */
    private RLock lockOf(LockClient client, LockView view) {
        return switch (view.kind()) {
            case "read-write" -> "write".equals(view.mode())
                    ? client.getReadWriteLock(name).writeLock() : client.getReadWriteLock(name).readLock();
            case "fair" -> client.getFairLock(name);
            case "fenced" -> client.getFencedLock(name);
            default -> client.getLock(name);
        };
    }

    private void report(LockView view, boolean released, String text) {
        if (top.json) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("name", name);
            json.put("kind", view.kind());
            json.put("released", released);
            json.put("holders", released ? view.toMap().get("holders") : java.util.List.of());
            json.put("listeners", released ? view.listeners() : 0);
            top.out().println(Json.write(json));
        } else {
            top.out().println(text);
        }
        top.out().flush();
    }
}
