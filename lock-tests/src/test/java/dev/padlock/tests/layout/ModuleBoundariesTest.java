package dev.padlock.tests.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Modules outside {@code lock-core} use its public packages ({@code dev.padlock},
 * {@code dev.padlock.spi}), never {@code dev.padlock.internal}: read from the main sources of every
 * module of the checkout, so that it holds for modules this one does not depend on.
 */
class ModuleBoundariesTest {

    @Test
    void noMainSourceOutsideLockCoreUsesTheEngine() {
        Path root = Repository.root();
        List<Path> sources = Repository.mainSources(root, "lock-core");
        List<String> offenders = sources.stream()
                .filter(file -> Repository.read(file).contains("dev.padlock.internal"))
                .map(file -> root.relativize(file).toString())
                .toList();
        assertThat(sources).as("main sources outside lock-core").hasSizeGreaterThan(50);
        assertThat(offenders).as("main sources outside lock-core that use dev.padlock.internal").isEmpty();
    }
}
