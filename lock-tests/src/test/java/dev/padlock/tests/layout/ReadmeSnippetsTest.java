package dev.padlock.tests.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of README.md compiles, against the modules it names: a front door that shows
 * code a reader cannot compile fails the build (issue 38, item 5: the lease one-liner around work
 * without a result did not). {@link ReadmeScope} declares what the snippets take as given.
 */
class ReadmeSnippetsTest {

    @Test
    void everyJavaSnippetOfTheReadmeCompiles(@TempDir Path classes) {
        List<JavaSnippets.Snippet> snippets = JavaSnippets.in(Repository.root().resolve("README.md"));
        assertThat(snippets).as("```java blocks in README.md").hasSizeGreaterThanOrEqualTo(4);

        assertThat(JavaSnippets.compile("README.md", snippets, ReadmeScope.class, classes))
                .as("errors compiling README.md's Java snippets").isEmpty();
    }
}
