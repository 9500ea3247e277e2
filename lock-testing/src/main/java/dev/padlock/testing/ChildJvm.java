package dev.padlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A command that starts a {@code main} class in a child JVM: the {@code java} this JVM runs, this
 * JVM's class path, a small heap and SLF4J Simple at {@code warn} unless told otherwise. Workers of
 * multi-process tests, the demo and the benchmarks start this way.
 *
 * <pre>{@code
 * Process worker = ChildJvm.of(Worker.class).args(uri, "3").processBuilder()
 *         .redirectErrorStream(true).start();
 * }</pre>
 */
public final class ChildJvm {
    private final Class<?> main;
    private final List<String> jvmArgs = new ArrayList<>(List.of("-Xmx128m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    private final List<String> args = new ArrayList<>();
    private String classPath = System.getProperty("java.class.path");

    private ChildJvm(Class<?> main) {
        this.main = Objects.requireNonNull(main, "main");
    }

    /** A child JVM that runs {@code main}'s {@code main} method. */
    public static ChildJvm of(Class<?> main) {
        return new ChildJvm(main);
    }

    /** Adds JVM options, e.g. {@code -XX:TieredStopAtLevel=1}; later ones win, as for {@code java}. */
    public ChildJvm jvmArgs(String... options) {
        jvmArgs.addAll(List.of(options));
        return this;
    }

    /** Adds program arguments. */
    public ChildJvm args(String... arguments) {
        args.addAll(List.of(arguments));
        return this;
    }

    /** Adds program arguments. */
    public ChildJvm args(List<String> arguments) {
        args.addAll(arguments);
        return this;
    }

    /** Replaces the class path (default: this JVM's {@code java.class.path}). */
    public ChildJvm classPath(String path) {
        this.classPath = Objects.requireNonNull(path, "path");
        return this;
    }

    /** The whole command line. */
    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    /** A process builder for {@link #command()}, to redirect its streams before starting it. */
    public ProcessBuilder processBuilder() {
        return new ProcessBuilder(command());
    }

    /** Starts the child with its standard error merged into its standard output. */
    public Process start() {
        try {
            return processBuilder().redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for " + main.getName(), e);
        }
    }

    /** The {@code java} executable this JVM runs. */
    public static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
