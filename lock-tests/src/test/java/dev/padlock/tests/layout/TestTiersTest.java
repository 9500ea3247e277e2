package dev.padlock.tests.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fault tier (scripts/test.sh's tier 3) is the JUnit tag {@code faults}, which the root pom's
 * tier profiles select with Surefire's {@code groups} and {@code excludedGroups}: a fault or soak
 * test added without the tag would silently run in tier 2 instead, and a misspelt tag would put a
 * test in no tier's selection but tier 2's. Read from the test sources of every module.
 */
class TestTiersTest {
    private static final String FAULTS = "@Tag(\"faults\")";
    private static final Pattern TAG = Pattern.compile("@Tag\\(\"([^\"]*)\"\\)");
    private static final Pattern TEST_CLASS = Pattern.compile("(?m)^(public |final |abstract )*class \\w+Test\\b");

    private final Path root = Repository.root();

    @Test
    void everyTestInTheFaultAndSoakPackagesIsTaggedFaults() {
        List<Path> tests = new ArrayList<>();
        for (String dir : List.of("faults", "soak")) {
            tests.addAll(testClasses(root.resolve("lock-tests/src/test/java/dev/padlock/tests").resolve(dir)));
        }
        assertThat(tests).as("fault and soak tests").hasSizeGreaterThan(15);
        assertThat(tests).allSatisfy(test -> assertThat(Repository.read(test))
                .as(root.relativize(test) + " (in the fault tier by its package)").contains(FAULTS));
    }

    @Test
    void faultsIsTheOnlyTag() {
        List<String> others = new ArrayList<>();
        for (Path test : testSources()) {
            Matcher tag = TAG.matcher(Repository.read(test));
            while (tag.find()) {
                if (!tag.group(1).equals("faults")) {
                    others.add(root.relativize(test) + ": " + tag.group());
                }
            }
        }
        assertThat(others).as("tags that no tier selects (scripts/test.sh knows only \"faults\")").isEmpty();
    }

    @Test
    void theTierProfilesSelectByTheTag() {
        String pom = Repository.read(root.resolve("pom.xml"));
        assertThat(pom).contains("<excludedGroups>faults</excludedGroups>", "<groups>faults</groups>");
    }

    /** Every *Test class directly in {@code dir}. */
    private static List<Path> testClasses(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith("Test.java"))
                    .filter(p -> TEST_CLASS.matcher(Repository.read(p)).find())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Java files under {@code <module>/src/test/java} of every module. */
    private List<Path> testSources() {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).toList()) {
                Path test = module.resolve("src/test/java");
                if (Files.isDirectory(test)) {
                    try (Stream<Path> files = Files.walk(test)) {
                        files.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }
}
