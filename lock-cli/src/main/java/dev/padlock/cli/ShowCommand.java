package dev.padlock.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code padlock show NAME}: one lock as Redis shows it now. Exits 0 whether or not it is held. */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = "Show a lock (Padlock's, Redisson's or ShedLock's): its kind, each holder with its client, "
                + "thread or lease, hold count, since when, TTL and lease, a fenced lock's token, who waits as far as "
                + "Redis can tell, and how many clients listen. A semaphore: its free permits, and each permit in use "
                + "with when its lease ends.")
final class ShowCommand implements Callable<Integer> {
    @ParentCommand
    PadlockCommand top;

    @Parameters(paramLabel = "NAME", description = "The lock's name (its key).")
    String name;

    @Override
    public Integer call() {
        try (Connection redis = top.connect()) {
            SemaphoreView semaphore = SemaphoreView.inspect(redis, name);
            if (semaphore != null) {
                top.out().print(top.json ? Json.write(semaphore.toMap()) + System.lineSeparator() : semaphore.text());
                top.out().flush();
                return 0;
            }
            LockView view = new LockInspector(redis).inspect(name);
            top.out().print(top.json ? Json.write(view.toMap()) + System.lineSeparator() : ShowText.show(view));
            top.out().flush();
            return 0;
        }
    }
}
