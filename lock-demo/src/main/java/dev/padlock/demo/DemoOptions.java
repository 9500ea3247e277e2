package dev.padlock.demo;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The demo's command-line options. Immutable. */
final class DemoOptions {

    static final String USAGE = String.join("\n",
            "Usage: padlock demo [--kind KIND] [--redis URI[,URI,URI]] [--processes N] [--threads N] [--seconds N] [--lease-ms N]",
            "  --kind KIND      the lock the workers contend on (default lock):",
            "                     lock    getLock, the reentrant lock",
            "                     fair    getFairLock, first come first served",
            "                     rw      getReadWriteLock: 3 in 4 iterations read the counter under the read lock",
            "                             (twice: no torn read), 1 in 4 increment it under the write lock",
            "                     fenced  getFencedLock: each holder checks that its token is larger than the last",
            "                             one written by any holder",
            "                     spin    getSpinLock, waits by back-off polling instead of pub/sub",
            "                     multi   getMultiLock over 3 locks, each thread naming them in another order",
            "                     red     getRedLock over 3 independent Redis servers (the counter is on the first)",
            "  --redis URI      use this Redis (default: start one: redis-server on the PATH, else the embedded binary);",
            "                   for --kind red, 3 comma-separated URIs (default: start 3)",
            "  --processes N    worker JVMs (default 3)",
            "  --threads N      threads per worker contending on the lock (default 4)",
            "  --seconds N      how long the workers run (default 10)",
            "  --lease-ms N     a fixed lease in milliseconds (default: the watchdog renews the lease)");

    private final DemoKind kind;
    private final List<String> redisUris;
    private final int processes;
    private final int threads;
    private final int seconds;
    private final long leaseMillis;

    private DemoOptions(DemoKind kind, List<String> redisUris, int processes, int threads, int seconds,
            long leaseMillis) {
        this.kind = kind;
        this.redisUris = redisUris;
        this.processes = processes;
        this.threads = threads;
        this.seconds = seconds;
        this.leaseMillis = leaseMillis;
    }

    /**
     * Parses the arguments.
     *
     * @throws IllegalArgumentException with a message for the user on a bad argument
     */
    static DemoOptions parse(String[] args) {
        DemoKind kind = DemoKind.LOCK;
        List<String> redisUris = List.of();
        int processes = 3;
        int threads = 4;
        int seconds = 10;
        long leaseMillis = 0;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Missing value after " + name);
            }
            String value = args[++i];
            switch (name) {
                case "--kind":
                    kind = DemoKind.parse(value);
                    break;
                case "--redis":
                    redisUris = Arrays.stream(value.split(",")).map(String::trim).filter(uri -> !uri.isEmpty())
                            .collect(Collectors.toUnmodifiableList());
                    break;
                case "--processes":
                    processes = positive(name, value);
                    break;
                case "--threads":
                    threads = positive(name, value);
                    break;
                case "--seconds":
                    seconds = positive(name, value);
                    break;
                case "--lease-ms":
                    leaseMillis = positive(name, value);
                    break;
                default:
                    throw new IllegalArgumentException("Unknown option " + name);
            }
        }
        if (!redisUris.isEmpty() && redisUris.size() != kind.servers()) {
            throw new IllegalArgumentException("--kind " + kind.argument() + " needs " + kind.servers()
                    + (kind.servers() == 1 ? " Redis URI" : " comma-separated Redis URIs (independent servers)")
                    + " after --redis, got " + redisUris.size());
        }
        if (redisUris.stream().distinct().count() != redisUris.size()) {
            throw new IllegalArgumentException("--redis names one server twice: " + redisUris);
        }
        return new DemoOptions(kind, redisUris, processes, threads, seconds, leaseMillis);
    }

    private static int positive(String name, String value) {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed > 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " needs a positive integer, got '" + value + "'");
    }

    /** The lock kind the workers use. */
    DemoKind kind() {
        return kind;
    }

    /**
     * The servers to use, {@link DemoKind#servers()} of them, when given; empty when the demo
     * starts its own.
     */
    List<String> redisUris() {
        return redisUris;
    }

    int processes() {
        return processes;
    }

    int threads() {
        return threads;
    }

    int seconds() {
        return seconds;
    }

    /** The fixed lease in milliseconds, or 0 for the watchdog. */
    long leaseMillis() {
        return leaseMillis;
    }

    String leaseDescription() {
        return leaseMillis > 0 ? "fixed " + leaseMillis + " ms" : "watchdog";
    }
}
