package dev.padlock.tests.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No main source file of any module is over {@value #MAX_LINES} lines: a class that grows past it
 * has taken a second job, which wants a class of its own (shared/STYLE.md; issue 39). Test sources
 * are not held to it.
 */
class ClassSizeTest {

    static final int MAX_LINES = 450;

    @Test
    void noMainSourceIsOverTheLimit() {
        Path root = Repository.root();
        List<Path> sources = Repository.mainSources(root, "");
        List<String> over = sources.stream()
                .filter(file -> Repository.read(file).lines().count() > MAX_LINES)
                .map(file -> root.relativize(file) + " (" + Repository.read(file).lines().count() + " lines)")
                .toList();
        assertThat(sources).as("main sources").hasSizeGreaterThan(200);
        assertThat(over).as("main sources over " + MAX_LINES + " lines").isEmpty();
    }
}
