package dev.padlock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code padlock demo [--kind K] ...}: runs the multi-process demo of {@code lock-demo}, whose jar
 * carries the Redis fixture that this command's jar does not. Every argument is the demo's own
 * ({@code padlock demo --help} lists them). The jar is {@code -Dpadlock.demo.jar} (which
 * {@code ./padlock} sets after building it), else {@code padlock-demo.jar} beside this jar's
 * module, as a checkout of the repository lays them out.
 */
@Command(name = "demo", description = "Run the multi-process demo: worker JVMs contend on one lock and update a "
        + "Redis counter inside it. Arguments go to the demo (padlock demo --help).")
final class DemoCommand implements Callable<Integer> {
    static final String JAR_PROPERTY = "padlock.demo.jar";

    @Parameters(paramLabel = "ARG", arity = "0..*", description = "The demo's arguments, e.g. --kind fair --seconds 5.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
        Path jar = demoJar();
        if (jar == null || !Files.isRegularFile(jar)) {
            System.err.println("padlock demo: the demo's jar was not found" + (jar == null ? "" : " at " + jar)
                    + "; build it with `mvn -pl lock-demo -am package` at the repository root, or run ./padlock demo there");
            return 2;
        }
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-jar", jar.toString()));
        command.addAll(args);
        try {
            Process demo = new ProcessBuilder(command).inheritIO().start();
            try {
                return demo.waitFor();
            } finally {
                if (demo.isAlive()) {
                    demo.destroy(); // interrupted: the demo stops its workers and servers on SIGTERM
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the demo (" + String.join(" ", command) + ")", e);
        }
    }

    /** The demo's jar: the property, else {@code lock-demo/target/padlock-demo.jar} next to this jar's module. */
    static Path demoJar() {
        String configured = System.getProperty(JAR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        try {
            Path self = Path.of(DemoCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = self.getParent() == null ? null : self.getParent().getParent(); // lock-cli/target/x.jar
            return module == null || module.getParent() == null ? null
                    : module.getParent().resolve("lock-demo").resolve("target").resolve("padlock-demo.jar");
        } catch (RuntimeException | java.net.URISyntaxException e) {
            return null;
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
