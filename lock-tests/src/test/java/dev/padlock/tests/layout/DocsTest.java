package dev.padlock.tests.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs name what the code has: the README stays a front door, the protocol reference names
 * every script and every key prefix, and every relative link resolves.
 */
class DocsTest {
    private static final Pattern KEY_PREFIX = Pattern.compile("\\b((?:padlock|redisson|rwlock)_[a-z_]*[a-z])\\b");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s#]+)(#[^)\\s]*)?\\)");

    private final Path root = Repository.root();

    @Test
    void theReadmeFitsInAFewScreens() throws IOException {
        assertThat(Files.readAllLines(root.resolve("README.md"))).hasSizeLessThanOrEqualTo(250);
    }

    @Test
    void theProtocolNamesEveryScript() throws IOException {
        String protocol = Files.readString(root.resolve("docs/design/protocol.md"));
        List<String> scripts = files(root.resolve("lock-lua/src/main/resources/dev/padlock/lua"), ".lua");
        assertThat(scripts).hasSizeGreaterThan(20);
        assertThat(scripts).allSatisfy(script -> assertThat(protocol).as("docs/design/protocol.md")
                .contains("`" + script + "`"));
    }

    @Test
    void theProtocolNamesEveryKeyPrefixTheScriptsWrite() throws IOException {
        String protocol = Files.readString(root.resolve("docs/design/protocol.md"));
        Set<String> prefixes = new TreeSet<>();
        prefixes.addAll(prefixesIn(root.resolve("lock-core/src/main/java/dev/padlock/spi/LockKeys.java"), true));
        for (String script : files(root.resolve("lock-lua/src/main/resources/dev/padlock/lua"), ".lua")) {
            prefixes.addAll(prefixesIn(root.resolve("lock-lua/src/main/resources/dev/padlock/lua").resolve(script), false));
        }
        assertThat(prefixes).contains("padlock_since", "redisson_lock__channel", "rwlock_timeout");
        assertThat(prefixes).allSatisfy(prefix -> assertThat(protocol).as("docs/design/protocol.md")
                .contains("`" + prefix));
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Matcher link = LINK.matcher(Files.readString(page));
            while (link.find()) {
                String target = link.group(1);
                if (target.contains("://") || target.startsWith("mailto:")) {
                    continue;
                }
                if (!Files.exists(page.getParent().resolve(target).normalize())) {
                    broken.add(root.relativize(page) + " -> " + target);
                }
            }
        }
        assertThat(broken).as("links to files that do not exist").isEmpty();
    }

    /** Key prefixes named in string literals of {@code file} (in Lua: any quoted text). */
    private static Set<String> prefixesIn(Path file, boolean javaStringsOnly) {
        Set<String> found = new TreeSet<>();
        Matcher literal = Pattern.compile(javaStringsOnly ? "\"([^\"]*)\"" : "'([^']*)'|\"([^\"]*)\"")
                .matcher(read(file));
        while (literal.find()) {
            String text = literal.group(1) != null ? literal.group(1) : literal.group(2);
            Matcher prefix = KEY_PREFIX.matcher(text);
            while (prefix.find()) {
                found.add(prefix.group(1));
            }
        }
        return found;
    }

    private static List<String> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix)).sorted().toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
