package dev.padlock.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Runs {@link Episode}s from a master seed until a number of simulated events has run, and on a
 * broken promise looks for the shortest run from the same episode seed that still breaks one (with
 * fewer operations each time), so that the report's trace is short.
 */
final class Simulation {
    private final SimConfig config;
    private long steps;
    private int episodes;
    private final java.util.Map<KnownDefect, Integer> known = new java.util.EnumMap<>(KnownDefect.class);
    private final java.util.Map<Kind, Integer> held = new java.util.EnumMap<>(Kind.class);
    /** Semaphore acquisitions told held: counted, then permit leases. */
    private final int[] permitsHeld = new int[2];

    Simulation(SimConfig config) {
        this.config = config;
    }

    /** A broken promise, found from {@code episodeSeed} with {@code operations} operations. */
    record Finding(long masterSeed, long episodeSeed, int operations, Episode.Violation violation, long stepsBefore) {
        String report() {
            StringBuilder out = new StringBuilder();
            out.append("broken promise: ").append(violation.what()).append('\n')
                    .append("  master seed ").append(masterSeed).append(", episode seed ").append(episodeSeed)
                    .append(", ").append(operations).append(" operations, at event ").append(violation.step())
                    .append(" (").append(String.format("%.3f", violation.atMillis())).append(" ms virtual)")
                    .append(", after ").append(stepsBefore).append(" simulated events in all\n")
                    .append("  repeat: -Dpadlock.sim.replay=").append(episodeSeed).append(':').append(operations)
                    .append("\n  trace (last ").append(violation.trace().size()).append(" lines):\n");
            violation.trace().forEach(line -> out.append("    ").append(line).append('\n'));
            return out.toString();
        }
    }

    /** Runs until {@code config.steps()} events have run; returns the first finding, shrunk, or null. */
    Finding run() {
        SplittableRandom seeds = new SplittableRandom(config.seed());
        while (steps < config.steps()) {
            long seed = seeds.nextLong();
            Episode episode = new Episode(config, seed);
            Episode.Violation violation = episode.run(Long.MAX_VALUE);
            steps += episode.world.steps();
            episodes++;
            episode.knownFindings().forEach((defect, n) -> known.merge(defect, n, Integer::sum));
            episode.held().forEach((kind, n) -> held.merge(kind, n, Integer::sum));
            permitsHeld[0] += episode.permitsHeld()[0];
            permitsHeld[1] += episode.permitsHeld()[1];
            if (violation != null) {
                return shrink(seed, config.episodeOperations(), violation, steps);
            }
        }
        return null;
    }

    /** Replays one episode seed with a number of operations. */
    Episode.Violation replay(long seed, int operations) {
        Episode episode = new Episode(config.withOperations(operations), seed);
        Episode.Violation violation = episode.run(Long.MAX_VALUE);
        steps += episode.world.steps();
        episodes++;
        return violation;
    }

    private Finding shrink(long seed, int operations, Episode.Violation found, long stepsBefore) {
        Finding best = new Finding(config.seed(), seed, operations, found, stepsBefore);
        List<Integer> tries = new ArrayList<>();
        for (int ops = operations / 2; ops >= 1; ops /= 2) {
            tries.add(ops);
        }
        for (int ops : tries) {
            Episode.Violation shorter = replay(seed, ops);
            if (shorter != null && shorter.step() < best.violation().step()) {
                best = new Finding(config.seed(), seed, ops, shorter, stepsBefore);
            }
        }
        return best;
    }

    /** Broken promises of known kinds (counted, not failed): see {@link KnownDefect}. */
    java.util.Map<KnownDefect, Integer> known() {
        return known;
    }

    /** Acquisitions told held, by kind: what the run covered. */
    java.util.Map<Kind, Integer> held() {
        return held;
    }

    /** Semaphore acquisitions told held: counted ones, then permit leases. */
    String permitsHeld() {
        return "SEMAPHORE=" + permitsHeld[0] + ", PERMIT_LEASE=" + permitsHeld[1];
    }

    long steps() {
        return steps;
    }

    int episodes() {
        return episodes;
    }
}
