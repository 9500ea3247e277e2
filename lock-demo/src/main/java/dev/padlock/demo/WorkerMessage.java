package dev.padlock.demo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The line protocol between a worker (on its stdout) and the parent, plus the one line the
 * parent sends on the worker's stdin ({@value #GO}). One message a line, words separated by one
 * space:
 * <pre>
 * READY                                     connected, waiting for GO
 * COUNT &lt;acquisitions so far&gt;
 * LATENCY &lt;micros&gt; &lt;micros&gt; ...             wake-up latencies, sent in chunks at the end
 * DONE &lt;acquisitions&gt; &lt;gets&gt; &lt;sets&gt; &lt;expired&gt; &lt;writes&gt; &lt;torn&gt; &lt;violations&gt;   see {@link WorkerTotals}
 * FAILED &lt;message&gt;
 * </pre>
 */
final class WorkerMessage {

    static final String GO = "GO";

    enum Type { READY, COUNT, LATENCY, DONE, FAILED }

    private final Type type;
    private final String[] arguments;

    private WorkerMessage(Type type, String[] arguments) {
        this.type = type;
        this.arguments = arguments;
    }

    static String ready() {
        return Type.READY.name();
    }

    static String count(long acquisitions) {
        return Type.COUNT + " " + acquisitions;
    }

    static String latency(long[] micros, int from, int to) {
        return Type.LATENCY + " " + Arrays.stream(micros, from, to)
                .mapToObj(Long::toString).collect(Collectors.joining(" "));
    }

    static String done(WorkerTotals totals) {
        return Type.DONE + " " + Arrays.stream(totals.toArray()).mapToObj(Long::toString)
                .collect(Collectors.joining(" "));
    }

    static String failed(String message) {
        return Type.FAILED + " " + message.replace('\n', ' ');
    }

    /**
     * Parses one line.
     *
     * @throws IllegalArgumentException when it is not a message of this protocol
     */
    static WorkerMessage parse(String line) {
        String[] words = line.trim().split(" ", -1);
        try {
            Type type = Type.valueOf(words[0].toUpperCase(Locale.ROOT));
            if (type == Type.FAILED) {
                return new WorkerMessage(type, new String[] {line.trim().substring(words[0].length()).trim()});
            }
            return new WorkerMessage(type, Arrays.copyOfRange(words, 1, words.length));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Not a worker message: " + line, e);
        }
    }

    Type type() {
        return type;
    }

    long number(int index) {
        return Long.parseLong(arguments[index]);
    }

    long[] numbers() {
        return Arrays.stream(arguments).filter(word -> !word.isEmpty()).mapToLong(Long::parseLong).toArray();
    }

    String text() {
        return String.join(" ", arguments);
    }
}
