package dev.padlock.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalQueue} owns its monitor (issue 39): only LocalQueue.java takes it, so that the
 * queue's state machine can be read in one file. Its collaborators get narrow transitions
 * ({@code TicketRunner.Transitions}, {@code LocalRelease.Transitions}), and a lock taken on one of
 * them, or on a queue, anywhere else in lock-core fails this test.
 */
class LocalQueueMonitorTest {
    private static final Path MAIN = Path.of("src/main/java");
    private static final Path QUEUE = MAIN.resolve("dev/padlock/internal/queue");
    /** A variable, field or parameter whose type is the queue or one of its narrow views. */
    private static final Pattern QUEUE_TYPED = Pattern.compile(
            "\\b(?:LocalQueue|(?:TicketRunner\\.|LocalRelease\\.)?Transitions)\\s+(\\w+)\\s*[,;=)]");
    private static final Pattern SYNCHRONIZED_BLOCK = Pattern.compile("\\bsynchronized\\s*\\(\\s*([^)]*?)\\s*\\)");

    @Test
    void noFileButLocalQueueTakesAQueuesMonitor() throws IOException {
        List<String> violations = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                scanned++;
                if (file.equals(QUEUE.resolve("LocalQueue.java"))) {
                    continue;
                }
                violations.addAll(locksOnAQueue(MAIN.relativize(file).toString(), code(Files.readString(file)),
                        file.startsWith(QUEUE)));
            }
        }
        assertThat(scanned).as("lock-core's main sources are found").isGreaterThan(100);
        assertThat(violations).as("locks on a LocalQueue outside LocalQueue.java").isEmpty();
    }

    @Test
    void theScanFindsEachWayOfLockingTheQueue() {
        assertThat(locksOnAQueue("A.java", "void f() { synchronized (queue) { } }", false)).hasSize(1);
        assertThat(locksOnAQueue("A.java", "void f() { synchronized(queue.x) { } }", false)).hasSize(1);
        assertThat(locksOnAQueue("A.java", "void f(LocalQueue q) { synchronized (q) { } }", false)).hasSize(1);
        assertThat(locksOnAQueue("A.java", "private final Transitions view; void f() { synchronized (view) { } }",
                false)).hasSize(1);
        assertThat(locksOnAQueue("A.java", "void f() { synchronized (parked) { } }", true))
                .as("in the queue package, every other class's state is the queue's").hasSize(1);
        assertThat(locksOnAQueue("A.java", "void f() { synchronized (parked) { } }", false)).isEmpty();
        assertThat(locksOnAQueue("A.java", code("/* synchronized (queue) */ // synchronized (queue)\n"), false))
                .isEmpty();
    }

    @Test
    void noClassOfTheQueuePackageIsOver450Lines() throws IOException {
        List<String> tooLong = new ArrayList<>();
        try (Stream<Path> files = Files.list(QUEUE)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                long lines = Files.readAllLines(file).size();
                if (lines > 450) {
                    tooLong.add(file.getFileName() + ": " + lines);
                }
            }
        }
        assertThat(tooLong).isEmpty();
    }

    /**
     * The synchronized blocks of {@code code} that lock a queue: on a name that starts with
     * "queue", or on a variable of the queue's types, or, in the queue package, on anything.
     */
    private static List<String> locksOnAQueue(String file, String code, boolean inQueuePackage) {
        Set<String> queueTyped = new HashSet<>();
        Matcher typed = QUEUE_TYPED.matcher(code);
        while (typed.find()) {
            queueTyped.add(typed.group(1));
        }
        List<String> found = new ArrayList<>();
        Matcher block = SYNCHRONIZED_BLOCK.matcher(code);
        while (block.find()) {
            String target = block.group(1);
            String name = target.split("[^\\w]", 2)[0];
            if (inQueuePackage || name.startsWith("queue") || queueTyped.contains(name)) {
                found.add(file + ": synchronized (" + target + ")");
            }
        }
        return found;
    }

    /** {@code source} without its comments. */
    private static String code(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
    }
}
