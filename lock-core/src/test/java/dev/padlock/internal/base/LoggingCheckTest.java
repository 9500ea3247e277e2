package dev.padlock.internal.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.ILoggerFactory;
import org.slf4j.helpers.NOPLogger;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * Issue 38: without an SLF4J provider, Padlock's warnings (lease lost, renewal failing) vanished
 * without a word; the first client of a JVM now says so, once, on standard error.
 */
class LoggingCheckTest {

    @Test
    void withoutAProviderOneLineSaysThatTheWarningsGoNowhereOnce() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicBoolean warned = new AtomicBoolean();

        assertThat(LoggingCheck.warnWithoutProvider(new NOPLoggerFactory(), err, warned)).isTrue();
        assertThat(LoggingCheck.warnWithoutProvider(new NOPLoggerFactory(), err, warned)).as("once").isFalse();

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(LoggingCheck.NO_PROVIDER + System.lineSeparator());
        assertThat(LoggingCheck.NO_PROVIDER).contains("no SLF4J provider", "lease lost", "slf4j-simple",
                "logback-classic");
    }

    @Test
    void withAProviderNothingIsPrinted() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ILoggerFactory provider = name -> NOPLogger.NOP_LOGGER; // any factory but SLF4J's fallback

        assertThat(LoggingCheck.warnWithoutProvider(provider, err, new AtomicBoolean())).isFalse();
        assertThat(bytes.size()).isZero();
    }

    /**
     * The real thing, in a JVM of its own with this module's test class path, which has no SLF4J
     * provider: two clients are created, one line is printed.
     */
    @Test
    void aJvmWithoutAProviderIsToldOnceWhenItCreatesClients() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                LoggingCheckChild.class.getName()).redirectErrorStream(true).start();
        String output;
        try (InputStream in = child.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8); // ends when the child exits
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output.lines().filter(LoggingCheck.NO_PROVIDER::equals).count()).as(output).isOne();
    }
}
