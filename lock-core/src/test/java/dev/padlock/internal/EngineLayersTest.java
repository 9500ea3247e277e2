package dev.padlock.internal;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine's layers, bottom to top, as each sub-package's {@code package-info} states them: a
 * class may use its own package and the packages below it, never one above. The public API
 * ({@code dev.padlock}, {@code dev.padlock.spi}) sits on top and reaches the engine only through
 * this package (the client factories, the SPI's access) and {@code base} (argument checks, URIs).
 */
class EngineLayersTest {

    /** Bottom first; "" is this package, the client that wires the layers together. */
    static final List<String> LAYERS = List.of(
            "base", "redis", "script", "wakeup", "protocol", "lease", "renewal", "acquire", "grant", "queue",
            "observe", "composite", "lock", "semaphore", "");

    private static JavaClasses engine;
    private static JavaClasses all;

    @BeforeAll
    static void importClasses() {
        all = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.padlock");
        engine = all.that(DescribedPredicate.describe("in the engine",
                (JavaClass c) -> c.getPackageName().startsWith("dev.padlock.internal")));
    }

    @Test
    void everySubPackageIsALayer() {
        Set<String> packages = new TreeSet<>();
        for (JavaClass c : engine) {
            packages.add(layerOf(c.getPackageName()));
        }
        assertThat(LAYERS).containsAll(packages);
    }

    @Test
    void noLayerUsesALayerAboveIt() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : engine) {
            int rank = LAYERS.indexOf(layerOf(c.getPackageName()));
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                if (target.startsWith("dev.padlock.internal") && LAYERS.indexOf(layerOf(target)) > rank) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    /** Imports for Javadoc alone leave no trace in the classes: read the sources too. */
    @Test
    void noSourceImportsALayerAboveIt() throws IOException {
        Path root = Path.of("src/main/java/dev/padlock/internal");
        Pattern imports = Pattern.compile(
                "^import (?:static )?dev\\.padlock\\.internal\\.([a-z]+)\\.", Pattern.MULTILINE);
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                Path relative = root.relativize(file);
                String layer = relative.getNameCount() == 1 ? "" : relative.getName(0).toString();
                Matcher m = imports.matcher(Files.readString(file));
                while (m.find()) {
                    if (LAYERS.indexOf(m.group(1)) > LAYERS.indexOf(layer)) {
                        violations.add(relative + " imports " + m.group(1));
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void subPackagesHaveNoCycles() {
        slices().matching("dev.padlock.internal.(*)..").should().beFreeOfCycles().check(engine);
    }

    @Test
    void theApiReachesTheEngineOnlyThroughItsTopPackage() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : all) {
            if (c.getPackageName().startsWith("dev.padlock.internal")) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                boolean allowed = target.equals("dev.padlock.internal") || target.equals("dev.padlock.internal.base");
                if (target.startsWith("dev.padlock.internal") && !allowed) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    /**
     * The public package's interfaces carry no engine behaviour: {@code RLock}'s lease methods go
     * through the lock's {@code LeaseFactory}. Only static factories and checks reach into the
     * engine: the client's ({@code LockClient}), the config's argument checks ({@code LockConfig})
     * and several observers as one ({@code LockObserver.composite}).
     */
    @Test
    void onlyTheClientAndItsConfigInTheApiPackageUseTheEngine() {
        Set<String> users = new TreeSet<>();
        for (JavaClass c : all) {
            if (!c.getPackageName().equals("dev.padlock")) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (d.getTargetClass().getPackageName().startsWith("dev.padlock.internal")) {
                    users.add(outermost(c).getSimpleName());
                }
            }
        }
        assertThat(users).isSubsetOf("LockClient", "LockConfig", "LockObserver");
    }

    @Test
    void atMostTenFilesLieDirectlyInTheEnginePackage() {
        Set<String> top = new TreeSet<>();
        for (JavaClass c : engine) {
            if (c.getPackageName().equals("dev.padlock.internal")) {
                top.add(outermost(c).getSimpleName());
            }
        }
        assertThat(top).hasSizeLessThanOrEqualTo(9); // and package-info
    }

    private static JavaClass outermost(JavaClass c) {
        JavaClass outer = c;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }

    private static String layerOf(String packageName) {
        String rest = packageName.substring("dev.padlock.internal".length());
        if (rest.isEmpty()) {
            return "";
        }
        int dot = rest.indexOf('.', 1);
        return dot < 0 ? rest.substring(1) : rest.substring(1, dot);
    }
}
