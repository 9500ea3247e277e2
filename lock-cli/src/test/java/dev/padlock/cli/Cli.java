package dev.padlock.cli;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs {@code padlock} in this JVM against one Redis, as {@code ./padlock --uri URI ...} would. */
final class Cli {
    private final String uri;

    Cli(String uri) {
        this.uri = uri;
    }

    /**
     * Runs {@code padlock --uri <this server> args} (no {@code --uri} added when args has one); a
     * first argument ending in a newline is standard input.
     */
    Result run(String... args) {
        String input = "";
        if (args.length > 0 && args[0].endsWith("\n")) {
            input = args[0];
            args = Arrays.copyOfRange(args, 1, args.length);
        }
        PadlockCommand command = new PadlockCommand();
        command.in = new BufferedReader(new StringReader(input));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var line = PadlockCommand.commandLine(command);
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>();
        if (!List.of(args).contains("--uri")) {
            all.add("--uri");
            all.add(uri);
        }
        all.addAll(List.of(args));
        int status = line.execute(all.toArray(String[]::new));
        return new Result(status, out.toString(), err.toString());
    }

    record Result(int status, String out, String err) {
    }
}
