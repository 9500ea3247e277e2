package dev.padlock.cli;

import dev.padlock.demo.Demo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code padlock demo [--kind K] ...}: the multi-process demo ({@link Demo}); every argument is
 * the demo's own ({@code padlock demo --help} lists them). {@code ./demo.sh} runs this.
 */
@Command(name = "demo", description = {"Run the multi-process demo: worker JVMs contend on one lock and update a",
    "Redis counter inside it. Arguments go to the demo: padlock demo --help."})
final class DemoCommand implements Callable<Integer> {
    @Parameters(paramLabel = "ARG", arity = "0..*", description = "The demo's arguments, e.g. --kind fair --seconds 5.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
        return Demo.run(args.toArray(String[]::new));
    }
}
