package dev.padlock.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code padlock watch NAME}: {@code show}, again every interval, until interrupted or {@code --count} times. */
@Command(name = "watch", mixinStandardHelpOptions = true,
        description = "Show a lock again and again (Ctrl-C stops); with --json one object a line.")
final class WatchCommand implements Callable<Integer> {
    @ParentCommand
    PadlockCommand top;

    @Parameters(paramLabel = "NAME", description = "The lock's name (its key).")
    String name;

    @Option(names = "--interval-ms", defaultValue = "1000", paramLabel = "MS",
            description = "Time between two reads, in ms. Default: ${DEFAULT-VALUE}.")
    long intervalMillis;

    @Option(names = "--count", defaultValue = "0", paramLabel = "N",
            description = "Stop after N reads; 0 (the default) runs until interrupted.")
    long count;

    @Override
    public Integer call() {
        boolean terminal = System.console() != null && !top.json;
        try (Connection redis = top.connect()) {
            for (long round = 1; count <= 0 || round <= count; round++) {
                LockView view = new LockInspector(redis).inspect(name);
                if (top.json) {
                    top.out().println(Json.write(view.toMap()));
                } else {
                    if (terminal) {
                        top.out().print("\033[H\033[2J"); // clear the screen: a live view
                    }
                    top.out().println("--- " + Text.time(view.nowMillis()) + " (every " + intervalMillis + " ms) ---");
                    top.out().print(ShowText.show(view));
                }
                top.out().flush();
                if (count > 0 && round == count) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(Math.max(1, intervalMillis));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
