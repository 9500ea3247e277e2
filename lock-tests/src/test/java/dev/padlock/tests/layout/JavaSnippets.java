package dev.padlock.tests.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Compiles the {@code ```java} blocks of a Markdown page with {@link JavaCompiler}, against this
 * JVM's class path, for Java 17. Each block is wrapped in a class of its own that extends a scope
 * (the names the page takes as given) and imports what a reader would: a block that opens with an
 * annotation is taken as the class's members, any other as the body of a method that may throw.
 */
final class JavaSnippets {
    /** The imports a reader of the page is assumed to have written. */
    private static final List<String> IMPORTS = List.of(
            "dev.padlock.*", "dev.padlock.micrometer.*", "dev.padlock.reactor.*", "dev.padlock.shedlock.*",
            "dev.padlock.spring.integration.*", "java.time.Duration", "java.util.Optional",
            "java.util.concurrent.CompletableFuture", "java.util.concurrent.TimeUnit",
            "net.javacrumbs.shedlock.core.LockProvider", "org.springframework.context.annotation.Bean",
            "reactor.core.publisher.Flux", "reactor.core.publisher.Mono");

    /** One block: the page's line of its first line of code, and the code. */
    record Snippet(int line, String code) {
    }

    private JavaSnippets() {
    }

    /** The {@code ```java} blocks of {@code page}, in order. */
    static List<Snippet> in(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            int first = i + 1;
            StringBuilder code = new StringBuilder();
            for (i = first; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                code.append(lines.get(i)).append('\n');
            }
            snippets.add(new Snippet(first + 1, code.toString()));
        }
        return snippets;
    }

    /**
     * Compiles {@code snippets}, each in a subclass of {@code scope}, into {@code out}: the errors,
     * each as {@code <pageName>:<line>: <message>}; empty when all compile.
     */
    static List<String> compile(String pageName, List<Snippet> snippets, Class<?> scope, Path out) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK");
        }
        Map<String, Snippet> byClass = new TreeMap<>();
        List<JavaFileObject> units = new ArrayList<>();
        for (Snippet snippet : snippets) {
            String name = "Snippet" + snippet.line();
            byClass.put("readme/" + name + ".java", snippet);
            units.add(new Source("readme/" + name + ".java", wrap(name, snippet.code(), scope)));
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("--release", "17", "-proc:none", "-d", out.toString(),
                "-classpath", System.getProperty("java.class.path"));
        javac.getTask(null, null, diagnostics, options, null, units).call();
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            Snippet snippet = d.getSource() == null ? null : byClass.get(d.getSource().getName());
            String where = snippet == null ? pageName : pageName + ":" + (snippet.line() + d.getLineNumber() - 1 - headerLines());
            errors.add(where + ": " + d.getMessage(Locale.ROOT));
        }
        return errors;
    }

    /** The lines {@link #wrap} puts before a snippet's code. */
    private static int headerLines() {
        return IMPORTS.size() + 3;
    }

    private static String wrap(String name, String code, Class<?> scope) {
        StringBuilder source = new StringBuilder("package readme;\n");
        IMPORTS.forEach(i -> source.append("import ").append(i).append(";\n"));
        source.append("import ").append(scope.getName()).append(";\n");
        boolean members = code.strip().startsWith("@");
        source.append("abstract class ").append(name).append(" extends ").append(scope.getSimpleName())
                .append(members ? " {\n" : " { void snippet() throws Exception {\n");
        return source.append(code).append(members ? "}\n" : "}}\n").toString();
    }

    /** A compilation unit held in memory. */
    private static final class Source extends SimpleJavaFileObject {
        private final String path;
        private final String code;

        Source(String path, String code) {
            super(URI.create("string:///" + path), Kind.SOURCE);
            this.path = path;
            this.code = code;
        }

        @Override
        public String getName() {
            return path;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }
}
