package dev.padlock.demo;

import java.util.Optional;

/** The demo's command-line options. Immutable. */
final class DemoOptions {

    static final String USAGE = String.join("\n",
            "Usage: demo.sh [--redis URI] [--processes N] [--threads N] [--seconds N] [--lease-ms N]",
            "  --redis URI      use this Redis (default: start one: redis-server on the PATH, else the embedded binary)",
            "  --processes N    worker JVMs (default 3)",
            "  --threads N      threads per worker contending on the lock (default 4)",
            "  --seconds N      how long the workers run (default 10)",
            "  --lease-ms N     a fixed lease in milliseconds (default: the watchdog renews the lease)");

    private final String redisUri;
    private final int processes;
    private final int threads;
    private final int seconds;
    private final long leaseMillis;

    private DemoOptions(String redisUri, int processes, int threads, int seconds, long leaseMillis) {
        this.redisUri = redisUri;
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
        String redisUri = null;
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
                case "--redis":
                    redisUri = value;
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
        return new DemoOptions(redisUri, processes, threads, seconds, leaseMillis);
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

    /** The Redis to use, when given; otherwise the demo starts its own. */
    Optional<String> redisUri() {
        return Optional.ofNullable(redisUri);
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
