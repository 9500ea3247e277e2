package dev.padlock.demo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The lock kinds the demo can run ({@code --kind}), and what each one means on Redis. */
enum DemoKind {
    /** {@code getLock}: the plain reentrant lock. */
    LOCK("getLock", 1),
    /** {@code getFairLock}: first come, first served. */
    FAIR("getFairLock", 1),
    /** {@code getReadWriteLock}: mostly readers, one write in four. */
    RW("getReadWriteLock: 3 in 4 read, 1 in 4 write", 1),
    /** {@code getFencedLock}: every holder checks its token against the last one written. */
    FENCED("getFencedLock, tokens checked", 1),
    /** {@code getSpinLock}: waits by back-off polling instead of pub/sub. */
    SPIN("getSpinLock", 1),
    /** {@code getMultiLock} over three locks, given in a different order by each thread. */
    MULTI("getMultiLock over 3 locks", 1),
    /** {@code getRedLock} over one lock on each of three independent servers. */
    RED("getRedLock over 3 servers", 3);

    private final String description;
    private final int servers;

    DemoKind(String description, int servers) {
        this.description = description;
        this.servers = servers;
    }

    /**
     * The kind called {@code name} on the command line (case-insensitive).
     *
     * @throws IllegalArgumentException for an unknown name
     */
    static DemoKind parse(String name) {
        for (DemoKind kind : values()) {
            if (kind.argument().equalsIgnoreCase(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("--kind needs one of " + choices() + ", got '" + name + "'");
    }

    /** {@code lock|fair|rw|...}, for the usage text. */
    static String choices() {
        return Arrays.stream(values()).map(DemoKind::argument).collect(Collectors.joining("|"));
    }

    /** The name on the command line, e.g. {@code fenced}. */
    String argument() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** What the workers do with this kind, for the header and the summary. */
    String description() {
        return description;
    }

    /** How many Redis servers the kind needs: 3 for the red lock, else 1. */
    int servers() {
        return servers;
    }
}
