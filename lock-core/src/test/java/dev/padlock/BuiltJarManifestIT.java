package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The built lock-core jar names its module {@code dev.padlock} for the module path. Run by
 * Surefire's {@code built-jar} execution after the jar is packaged (lock-core's pom), which passes
 * the jar's path as {@code padlock.builtJar}.
 */
class BuiltJarManifestIT {

    private static Path builtJar() {
        String path = System.getProperty("padlock.builtJar");
        assertThat(path).as("system property padlock.builtJar, set by lock-core's pom").isNotBlank();
        Path jar = Path.of(path);
        assertThat(jar).as("the built jar").isRegularFile();
        return jar;
    }

    @Test
    void theManifestNamesTheModule() throws Exception {
        try (JarFile jar = new JarFile(builtJar().toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                    .isEqualTo("dev.padlock");
        }
    }

    @Test
    void onTheModulePathItIsTheModuleDevPadlockWithThePublicPackages() {
        Set<ModuleReference> found = ModuleFinder.of(builtJar()).findAll();
        assertThat(found).hasSize(1);
        ModuleDescriptor module = found.iterator().next().descriptor();
        assertThat(module.name()).isEqualTo("dev.padlock");
        assertThat(module.isAutomatic()).as("an automatic module: no module-info").isTrue();
        assertThat(module.packages()).contains("dev.padlock", "dev.padlock.spi");
        Set<String> outside = module.packages().stream()
                .filter(p -> !p.equals("dev.padlock") && !p.startsWith("dev.padlock."))
                .collect(Collectors.toSet());
        assertThat(outside).as("packages outside dev.padlock").isEmpty();
    }
}
