package dev.padlock.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 38: the demo's first line is its banner. It used to be the Redis fixture's INFO log line
 * ({@code [main] INFO dev.padlock.testing.RedisServerProcess - Started redis-server ...}), printed
 * while the demo provisioned its server, before the banner.
 */
class DemoFirstLineTest {
    /** Catches a hang, not a slow machine: a one-second run of one worker. */
    private static final long BOUND_SECONDS = 180;

    @TempDir
    Path directory;

    @Test
    void theBannerIsTheFirstLineAndNoFixtureLogLineIsPrinted() throws IOException, InterruptedException {
        Path output = directory.resolve("demo.out");
        // SLF4J Simple at info, as `java -jar padlock-demo.jar` runs it (ChildJvm's default is warn)
        Process demo = ChildJvm.of(Demo.class)
                .jvmArgs("-Dorg.slf4j.simpleLogger.defaultLogLevel=info")
                .args("--processes", "1", "--threads", "1", "--seconds", "1")
                .processBuilder().redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertThat(demo.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)).as("the demo ends").isTrue();
        } finally {
            if (demo.isAlive()) {
                demo.destroy(); // the demo stops its workers and servers on SIGTERM
                demo.waitFor(30, TimeUnit.SECONDS);
            }
        }
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
        assertThat(lines).as("the demo's output").isNotEmpty();
        assertThat(lines.get(0)).as("the first line of:%n%s", String.join("\n", lines))
                .startsWith("Padlock demo, --kind lock");
        assertThat(lines).as("no INFO line of the Redis fixture")
                .noneMatch(line -> line.contains("INFO dev.padlock.testing"));
        assertThat(demo.exitValue()).as("exit status; output:%n%s", String.join("\n", lines)).isZero();
    }
}
