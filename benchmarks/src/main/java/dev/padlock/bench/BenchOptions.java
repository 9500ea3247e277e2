package dev.padlock.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The command line of {@link Bench}. Immutable.
 *
 * @param seconds measured seconds per scenario and library
 * @param scenarioIds the scenarios to run, empty for all
 * @param out where {@code bench.md} and the chart go
 * @param redisUri a server to use instead of starting one (single server only)
 * @param jmh whether to run the JMH allocation benchmark
 * @param rounds how often each scenario runs per library, the order of the libraries flipping
 *     every round; the median round is reported
 * @param topology one server, or a Redis Cluster the runner starts
 */
record BenchOptions(int seconds, int rounds, List<String> scenarioIds, Path out, Optional<String> redisUri,
        boolean jmh, Topology topology) {

    static final String USAGE = String.join("\n",
            "Usage: scripts/bench.sh [--topology single|cluster] [--seconds N] [--rounds N]",
            "                [--scenarios 1,1b,2,3,3b,4,5,6,7,8,9,10,11,12]",
            "                [--out DIR] [--redis URI] [--no-jmh]",
            "  --topology T     single: one Redis server (default); cluster: a Redis Cluster of "
                    + Topology.CLUSTER_MASTERS + " masters without",
            "                   replicas that the runner starts; figures from the servers are summed over the masters",
            "  --seconds N      measured seconds per scenario, library and round (default 3; plus 1-2 s of warm-up)",
            "  --rounds N       rounds per scenario, the libraries' order flipping each round; the median round",
            "                   of each library is reported (default 3); a round that fails for a library is",
            "                   reported as such and the run goes on (exit status 1 at the end)",
            "  --scenarios IDS  comma-separated scenario ids; a number selects its lettered ids too: '3' also selects 3b,",
            "                   '6' the wake-up latencies 6a-6c (waiter in another client, the same client, another JVM),",
            "                   '7' the lock family 7a-7i (lock, fair, read, write, fenced, spin, multi, red, fair x 4",
            "                   threads), '8' 8a-8d (one lock, 1, 2, 4, 8 JVMs x 4 threads), '9' 9a-9c (one fair lock,",
            "                   1, 2, 4 JVMs x 4 threads), '10' 10a-10b (one read-write lock at 90 % reads, 2, 4 JVMs x 4",
            "                   threads), '11' 11a (one semaphore of 4 permits, 4 JVMs x 4 threads: acquire() + release(),",
            "                   the permits on Redis checked after the run), '12' 12a-12b (one thread: lock() + unlock()",
            "                   of a multi lock of 100, of 1,000 plain locks, figures per multi lock, no lock key left",
            "                   on Redis after the run; on a cluster also 12c, 100 locks with a hash tag per master,",
            "                   and the round trips per master) (default all)",
            "  --out DIR        where bench.md and the chart (acquisitions.png; acquisitions-cluster.png on a",
            "                   cluster) are written (default benchmarks/target/bench; on a cluster its cluster/)",
            "  --redis URI      use this Redis server instead of starting one (its other clients skew the figures;",
            "                   not with --topology cluster)",
            "  --jmh / --no-jmh run the JMH allocation benchmark (about 20 s; default on)");

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException on anything it does not understand
     */
    static BenchOptions parse(String... args) {
        int seconds = 3;
        int rounds = 3;
        List<String> scenarios = new ArrayList<>();
        Path out = null;
        String redis = null;
        boolean jmh = true;
        Topology topology = Topology.SINGLE;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--seconds":
                    seconds = positive(arg, value(args, ++i, arg));
                    break;
                case "--rounds":
                    rounds = positive(arg, value(args, ++i, arg));
                    break;
                case "--scenarios":
                    Arrays.stream(value(args, ++i, arg).split(",")).map(String::trim).filter(s -> !s.isEmpty())
                            .forEach(scenarios::add);
                    break;
                case "--out":
                    out = Path.of(value(args, ++i, arg));
                    break;
                case "--redis":
                    redis = value(args, ++i, arg);
                    break;
                case "--jmh":
                    jmh = true;
                    break;
                case "--no-jmh":
                    jmh = false;
                    break;
                case "--topology":
                    topology = Topology.parse(value(args, ++i, arg));
                    break;
                default:
                    throw new IllegalArgumentException("Unknown option '" + arg + "'");
            }
        }
        if (topology == Topology.CLUSTER && redis != null) {
            throw new IllegalArgumentException("--redis names one server; --topology cluster starts its own cluster");
        }
        if (out == null) {
            Path bench = Path.of("benchmarks", "target", "bench");
            out = topology == Topology.SINGLE ? bench : bench.resolve("cluster");
        }
        return new BenchOptions(seconds, rounds, List.copyOf(scenarios), out, Optional.ofNullable(redis), jmh,
                topology);
    }

    /** Whether {@code scenario} was asked for: by its id, or by its number without the letter. */
    boolean selects(Scenario scenario) {
        return scenarioIds.isEmpty() || scenarioIds.contains(scenario.id())
                || scenarioIds.contains(scenario.id().replaceAll("[a-z]+$", ""));
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    private static int positive(String option, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number > 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        throw new IllegalArgumentException(option + " needs a positive whole number, got '" + value + "'");
    }
}
