package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import javax.tools.DocumentationTool;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * lock-core's Javadoc, run through the JDK's javadoc tool with doclint: a warning fails the build
 * (tier 1 of scripts/test.sh, and so CI, on every JDK it runs). The public packages get every
 * check, a missing {@code @param}, {@code @return} or {@code @throws} included. The internal
 * packages are not API and publish no pages: they get every check but "missing" (broken
 * references, HTML, syntax), as the compiler's {@code -Xdoclint:all,-missing} has them. The tool
 * is the JDK's own, so the check needs no Maven plugin and runs offline. The sources are the
 * module {@code dev.padlock}, so its dependencies go on javadoc's module path: the jars that
 * lock-core's pom lists in {@code padlock.runtimeClasspath} (the scripts' {@code lock-lua}, which
 * javadoc does not need, may be a directory of classes there and is left out).
 */
class JavadocTest {
    private static final Path SOURCES = Path.of("src/main/java");

    @Test
    void publicPackagesHaveCompleteJavadocWithoutWarnings(@TempDir Path out) {
        assertNoWarnings(out, "-Xdoclint:all", "dev.padlock", "dev.padlock.spi");
    }

    @Test
    void internalPackagesHaveWellFormedJavadocWithoutWarnings(@TempDir Path out) {
        assertNoWarnings(out, "-Xdoclint:all,-missing", "-subpackages", "dev.padlock.internal");
    }

    private static String modulePath() {
        String listing = System.getProperty("padlock.runtimeClasspath");
        assertThat(listing).as("system property padlock.runtimeClasspath, set by lock-core's pom").isNotBlank();
        try {
            return Arrays.stream(Files.readString(Path.of(listing), StandardCharsets.UTF_8).trim().split(File.pathSeparator))
                    .filter(entry -> entry.endsWith(".jar"))
                    .collect(Collectors.joining(File.pathSeparator));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + listing, e);
        }
    }

    private static void assertNoWarnings(Path out, String doclint, String... packages) {
        DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
        assertThat(javadoc).as("the JDK's javadoc tool (a JDK, not a JRE, runs the tests)").isNotNull();
        List<String> arguments = new ArrayList<>(List.of(doclint, "-Werror", "-Xmaxwarns", "10000",
                "--release", "17", "-encoding", "UTF-8", "-quiet", "-notimestamp",
                "-d", out.toString(),
                "-sourcepath", SOURCES.toString(),
                "--module-path", modulePath()));
        arguments.addAll(List.of(packages));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        int status = javadoc.run(null, printed, printed, arguments.toArray(String[]::new));

        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(output).as("javadoc %s %s", doclint, String.join(" ", packages))
                .doesNotContain("warning").doesNotContain("error");
        assertThat(status).as("javadoc's exit status; it printed:%n%s", output).isZero();
    }
}
