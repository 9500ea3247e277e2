package dev.padlock.tests.soak;

import dev.padlock.spi.LockKeys;
import dev.padlock.tests.soak.SoakEvents.Acquisition;
import dev.padlock.tests.soak.SoakEvents.Failure;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads a soak run's logs (the workers' events, the fenced resource's own log, the faults as
 * applied, the keys left on both servers) and judges it. Each check is exact given the logs; the
 * only allowances are time bounds, and those are generous upper bounds named below. The overlaps
 * and what explains them are {@link SoakOverlaps}'.
 */
final class SoakAnalysis {

    /**
     * An acquire exception counts as caused by an outage when it came at most this long after the
     * outage ended: a reconnect plus a command timeout, twice over.
     */
    static final long NEAR_OUTAGE_US = 2 * SoakRun.COMMAND_TIMEOUT_MS * 1_000 + 1_000_000;
    /**
     * A waiter "outlasted" an outage when its deadline is at least this long after the outage
     * ended: time to reconnect and retry (the contract's bound: twice the command timeout).
     */
    static final long RIDE_THROUGH_ALLOWANCE_US = 2 * SoakRun.COMMAND_TIMEOUT_MS * 1_000;

    /** One check's verdict. */
    record Check(String id, String title, boolean passed, String figures) {
    }

    /**
     * A stretch of time when Redis could not answer, or (for {@code process >= 0}) that worker was
     * stopped; {@code resumeUs} as {@link SoakRun.Applied} has it; {@code aimedAt}, for a waiter
     * stop, the wait it was aimed at (else null).
     */
    record Outage(String kind, long startUs, long resumeUs, long endUs, int process, SoakRun.Waiter aimedAt) {
    }

    private final SoakRun.Outcome outcome;
    private final SoakEvents events;
    private final List<Acquisition> acquisitions;
    private final List<Failure> failures;
    private final List<Outage> outages = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private final StringBuilder report = new StringBuilder();

    private SoakAnalysis(SoakRun.Outcome outcome, SoakEvents events) {
        this.outcome = outcome;
        this.events = events;
        this.acquisitions = events.acquisitions();
        this.failures = events.failures();
    }

    static SoakAnalysis of(SoakRun.Outcome outcome) throws IOException {
        SoakAnalysis analysis = new SoakAnalysis(outcome, SoakEvents.read(outcome.exits()));
        analysis.read();
        analysis.judge();
        return analysis;
    }

    List<Check> checks() {
        return checks;
    }

    String report() {
        return report.toString();
    }

    private void read() {
        for (SoakRun.Applied applied : outcome.applied()) {
            FaultSchedule.Fault fault = applied.fault();
            switch (fault.kind()) {
                case SERVER_PAUSE, RESTART, CLIENT_KILL -> outages.add(new Outage(fault.kind().name(), applied.startUs(),
                        applied.resumeUs(), applied.endUs(), -1, null));
                case WORKER_STOP, WAITER_STOP -> outages.add(new Outage(fault.kind().name(), applied.startUs(),
                        applied.resumeUs(), applied.endUs(), fault.worker(), applied.waiter()));
                case HOLDER_STALL, SCRIPT_FLUSH -> {
                    // not an outage: Redis answers throughout
                }
                default -> throw new IllegalStateException("unknown fault " + fault.kind());
            }
        }
    }

    // ---- judging ----

    private void judge() {
        figures();
        SoakOverlaps overlaps = new SoakOverlaps(acquisitions, outages, outcome.goUs());
        checks.add(overlaps.check(report));
        overlaps.stops(outcome.applied(), events, report);
        fencing();
        exceptions();
        strayHolds();
        exits();
        keys();
        report.append("\nchecks\n");
        for (Check check : checks) {
            report.append(String.format("  %-4s %-16s %s: %s%n", check.passed() ? "PASS" : "FAIL", check.id(),
                    check.title(), check.figures()));
        }
    }

    private void figures() {
        SoakRun.Settings settings = outcome.settings();
        report.append(String.format("fault-schedule soak: seed %d, %d processes x %d threads, %.0f s, lock %s%n",
                settings.seed(), settings.processes(), settings.threads(), settings.durationMs() / 1000.0,
                outcome.lockName()));
        report.append(String.format("wait %d ms, fixed lease %d ms, watchdog lease %d ms, command timeout %d ms%n",
                SoakWorker.WAIT_MS, SoakWorker.LEASE_MS, SoakRun.WATCHDOG_MS, SoakRun.COMMAND_TIMEOUT_MS));

        report.append("\nfaults applied (planned offset, kind, planned length, as applied)\n");
        Map<String, Integer> faultsByKind = new TreeMap<>();
        for (SoakRun.Applied applied : outcome.applied()) {
            faultsByKind.merge(applied.fault().kind().name(), 1, Integer::sum);
            report.append(String.format("  %s  took %5d ms at +%6.2f s %s%n", applied.fault(),
                    (applied.endUs() - applied.startUs()) / 1_000, (applied.startUs() - outcome.goUs()) / 1e6,
                    applied.note()));
        }
        report.append("  by kind: ").append(faultsByKind).append('\n');

        report.append("\nper process     acquired  fenced  fixed  watchdog  timeouts  exceptions  lease-lost\n");
        for (SoakRun.WorkerExit exit : outcome.exits()) {
            int p = exit.index();
            List<Acquisition> mine = acquisitions.stream().filter(a -> a.process() == p).toList();
            report.append(String.format("  worker %-2d     %8d  %6d  %5d  %8d  %8d  %10d  %10d%n", p, mine.size(),
                    mine.stream().filter(a -> a.token() != null).count(),
                    mine.stream().filter(a -> a.leaseMs() > 0).count(),
                    mine.stream().filter(a -> a.leaseMs() == 0).count(),
                    events.timeoutsPerProcess().getOrDefault(p, 0),
                    failures.stream().filter(f -> f.process() == p).count(),
                    events.lostPerProcess().getOrDefault(p, 0)));
        }
        report.append(String.format("  total         %8d%n", acquisitions.size()));

        Map<String, Integer> releases = new TreeMap<>();
        acquisitions.forEach(a -> releases.merge(a.release(), 1, Integer::sum));
        report.append("  unlock outcomes: ").append(releases).append('\n');

        // A long run of one thread's acquisitions while others wait hints at a hold it kept.
        int longest = 0;
        String longestWho = "-";
        int run = 0;
        for (int i = 0; i < acquisitions.size(); i++) {
            Acquisition a = acquisitions.get(i);
            boolean same = i > 0 && acquisitions.get(i - 1).process() == a.process()
                    && acquisitions.get(i - 1).thread() == a.thread();
            run = same ? run + 1 : 1;
            if (run > longest) {
                longest = run;
                longestWho = "w" + a.process() + "t" + a.thread() + " ending at +"
                        + String.format("%.2f s", (a.toldUs() - outcome.goUs()) / 1e6);
            }
        }
        report.append("  longest run of acquisitions by one thread: ").append(longest).append(" (").append(longestWho)
                .append(")\n");
    }

    private void fencing() {
        List<Acquisition> fenced = acquisitions.stream().filter(a -> a.token() != null).toList();
        Map<Long, Integer> timesHanded = new HashMap<>();
        fenced.forEach(a -> timesHanded.merge(a.token(), 1, Integer::sum));
        long duplicateTokens = timesHanded.values().stream().filter(c -> c > 1).count();
        long duplicateAcquisitions = timesHanded.values().stream().mapToLong(c -> c - 1).sum();

        // A regression: a token lower than one already handed out before this acquisition began.
        long[] acquiredAt = fenced.stream().mapToLong(Acquisition::toldUs).toArray();
        long[] prefixMax = new long[fenced.size()];
        for (int i = 0; i < fenced.size(); i++) {
            prefixMax[i] = Math.max(i == 0 ? Long.MIN_VALUE : prefixMax[i - 1], fenced.get(i).token());
        }
        Set<Acquisition> regressed = new java.util.HashSet<>();
        List<String> examples = new ArrayList<>();
        for (Acquisition b : fenced) {
            int before = countBefore(acquiredAt, b.attemptUs());
            if (before > 0 && prefixMax[before - 1] > b.token()) {
                regressed.add(b);
                if (examples.size() < 5) {
                    examples.add(String.format("%s got %d at +%.3f s after %d had been handed out", b.who(), b.token(),
                            rel(b.toldUs()), prefixMax[before - 1]));
                }
            }
        }

        int accepted = 0;
        int refused = 0;
        int refusedRegressed = 0;
        int staleAccepted = 0;
        for (int i = 0; i < fenced.size(); i++) {
            Acquisition a = fenced.get(i);
            if (a.write() == null) {
                continue;
            }
            if (!a.write().accepted()) {
                refused++;
                if (regressed.contains(a) || timesHanded.get(a.token()) > 1) {
                    refusedRegressed++;
                }
                continue;
            }
            accepted++;
            // Stale: a later holder with a token no higher than a's had already acquired when a wrote.
            for (int j = i + 1; j < fenced.size() && fenced.get(j).toldUs() < a.write().startUs(); j++) {
                if (fenced.get(j).token() <= a.token()) {
                    staleAccepted++;
                    if (examples.size() < 10) {
                        examples.add(String.format("stale write accepted: %s wrote %d at +%.3f s after %s got %d",
                                a.who(), a.token(), rel(a.write().startUs()), fenced.get(j).who(),
                                fenced.get(j).token()));
                    }
                    break;
                }
            }
        }

        // The resource's own log: its accepted tokens must strictly increase, and match the workers'.
        long resourceAccepted = 0;
        long resourceRefused = 0;
        boolean monotonic = true;
        double last = Double.NEGATIVE_INFINITY;
        for (String entry : outcome.resourceLog()) {
            String[] f = entry.split(" ");
            if (f[0].equals("A")) {
                resourceAccepted++;
                double token = Double.parseDouble(f[1]);
                monotonic &= token > last;
                last = token;
            } else {
                resourceRefused++;
            }
        }
        boolean consistent = monotonic && resourceAccepted == accepted && resourceRefused == refused;

        report.append("\nfencing\n");
        report.append(String.format("  tokens handed out %d (min %s, max %s), distinct %d%n", fenced.size(),
                fenced.stream().mapToLong(Acquisition::token).min().stream().boxed().findFirst().orElse(null),
                fenced.stream().mapToLong(Acquisition::token).max().stream().boxed().findFirst().orElse(null),
                timesHanded.size()));
        report.append(String.format("  token regressions %d, duplicate tokens %d (%d extra acquisitions)%n",
                regressed.size(), duplicateTokens, duplicateAcquisitions));
        report.append(String.format("  resource: %d writes accepted, %d refused (%d of them carried a regressed or "
                + "duplicate token); stale writes accepted %d%n", accepted, refused, refusedRegressed, staleAccepted));
        report.append(String.format("  resource's own log: %d accepted, %d refused, accepted tokens strictly "
                + "increasing: %s%n", resourceAccepted, resourceRefused, monotonic));
        examples.forEach(text -> report.append("  ").append(text).append('\n'));
        checks.add(new Check("fencing", "tokens never go backwards or repeat; no stale write accepted",
                regressed.isEmpty() && duplicateAcquisitions == 0 && staleAccepted == 0 && consistent,
                String.format("%d regressions, %d acquisitions given a token handed out before, %d stale writes "
                        + "accepted, resource log consistent %s", regressed.size(), duplicateAcquisitions, staleAccepted,
                        consistent)));
    }

    /** How many of the sorted {@code times} are strictly before {@code t}. */
    private static int countBefore(long[] times, long t) {
        int low = 0;
        int high = times.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (times[mid] < t) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private void exceptions() {
        Map<String, Map<String, Integer>> byKind = new TreeMap<>();
        Map<Outage, int[]> perOutage = new java.util.LinkedHashMap<>();
        Map<Outage, Set<String>> threadsPerOutage = new HashMap<>();
        outages.forEach(o -> perOutage.put(o, new int[2]));
        int outlasted = 0;
        int stray = 0;
        List<String> examples = new ArrayList<>();
        for (Failure f : failures) {
            Outage o = outageFor(f);
            String label;
            if (o == null) {
                label = "no outage near";
                stray++;
                if (examples.size() < 10) {
                    examples.add(String.format("w%dt%d %s at +%.3f s, no outage near: %s %s", f.process(), f.thread(),
                            f.op(), rel(f.failUs()), f.kind(), f.message()));
                }
            } else if (o.process() >= 0) {
                label = "own process stopped";
            } else if (f.deadlineUs() >= o.endUs() + RIDE_THROUGH_ALLOWANCE_US) {
                label = o.kind() + ", wait outlasted it";
                outlasted++;
                if (examples.size() < 10) {
                    examples.add(String.format("w%dt%d %s at +%.3f s, %s of %d ms, wait left %s: %s %s", f.process(),
                            f.thread(), f.op(), rel(f.failUs()), o.kind(), (o.endUs() - o.startUs()) / 1_000,
                            f.waitMs() < 0 ? "unbounded" : (f.deadlineUs() - f.failUs()) / 1_000 + " ms", f.kind(),
                            f.message()));
                }
            } else {
                label = o.kind() + ", wait ended within it";
            }
            byKind.computeIfAbsent(f.kind(), k -> new TreeMap<>()).merge(label, 1, Integer::sum);
            if (o != null) {
                perOutage.get(o)[0]++;
                threadsPerOutage.computeIfAbsent(o, k -> new java.util.TreeSet<>())
                        .add("w" + f.process() + "t" + f.thread());
                if (label.endsWith("outlasted it")) {
                    perOutage.get(o)[1]++;
                }
            }
        }
        Map<String, Integer> releaseErrors = new TreeMap<>();
        acquisitions.stream().filter(a -> !a.release().equals("OK") && !a.release().equals("NOT_HELD"))
                .forEach(a -> releaseErrors.merge(a.release(), 1, Integer::sum));

        report.append("\nacquire exceptions: ").append(failures.size()).append('\n');
        byKind.forEach((kind, labels) -> labels.forEach((label, count) ->
                report.append(String.format("  %5d  %-50s %s%n", count, kind, label))));
        report.append(String.format("  to waiters whose wait outlasted the outage: %d; with no outage near: %d%n",
                outlasted, stray));
        report.append("  per outage: exceptions, of them to waiters whose wait outlasted it, threads that got them\n");
        perOutage.forEach((o, counts) -> report.append(String.format("    %-12s at +%5.1f s, %4d ms: %4d, %4d, %s%n",
                o.kind() + (o.process() >= 0 ? "(w" + o.process() + ")" : ""), rel(o.startUs()),
                (o.endUs() - o.startUs()) / 1_000, counts[0], counts[1],
                threadsPerOutage.getOrDefault(o, Set.of()))));
        report.append("  unlock exceptions: ").append(releaseErrors).append('\n');
        examples.forEach(text -> report.append("  ").append(text).append('\n'));
        checks.add(new Check("rideThrough", "no waiter whose wait outlasted an outage got an exception for it",
                outlasted == 0, outlasted + " of " + failures.size() + " acquire exceptions"));
        checks.add(new Check("quietExceptions", "no acquire exception away from an outage",
                stray == 0, stray + " of " + failures.size() + " acquire exceptions"));
    }

    /** The latest outage that began before the failure and ended at most {@link #NEAR_OUTAGE_US} before it. */
    private Outage outageFor(Failure f) {
        Outage found = null;
        for (Outage o : outages) {
            boolean applies = o.process() < 0 || o.process() == f.process();
            if (applies && o.startUs() <= f.failUs() && f.failUs() <= o.endUs() + NEAR_OUTAGE_US
                    && (found == null || o.startUs() > found.startUs())) {
                found = o;
            }
        }
        return found;
    }

    private void strayHolds() {
        List<SoakEvents.Stray> strays = events.strays();
        List<SoakEvents.Stray> episodes = strays.stream().filter(SoakEvents.Stray::firstOfEpisode).toList();
        Map<String, Integer> byOrigin = new TreeMap<>();
        strays.forEach(stray -> byOrigin.merge(stray.after(), 1, Integer::sum));
        report.append("\nstray holds (Redis says a thread holds the lock after it unlocked its only hold, or after "
                + "it was told it did not get it): ").append(strays.size()).append(' ').append(byOrigin).append('\n');
        report.append("  episodes (a thread's run of such answers): ").append(episodes.size()).append('\n');
        episodes.stream().limit(10).forEach(stray -> report.append(String.format("  w%dt%d from +%.3f s (after %s)%n",
                stray.process(), stray.thread(), rel(stray.us()), stray.after())));
        checks.add(new Check("strayHolds", "no thread keeps a hold after its unlock or a failed acquire",
                strays.isEmpty(), episodes.size() + " episodes, " + strays.size() + " observations " + byOrigin));
    }

    private void exits() {
        long bound = outcome.endUs() + SoakRun.EXIT_BOUND.toNanos() / 1_000;
        List<String> bad = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        for (SoakRun.WorkerExit exit : outcome.exits()) {
            String after = String.format("%.1f s", (exit.exitedUs() - outcome.endUs()) / 1e6);
            figures.append(String.format("w%d: %s after the end; ", exit.index(),
                    exit.exitCode() == null ? "killed" : "exit " + exit.exitCode() + " " + after));
            if (exit.exitCode() == null || exit.exitCode() != SoakWorker.EXIT_OK || exit.exitedUs() > bound) {
                bad.add("w" + exit.index() + " (see " + exit.output() + ")");
            }
        }
        report.append("\nworker exits: ").append(figures).append('\n');
        checks.add(new Check("exits", "every worker exits by itself, with 0, within " + SoakRun.EXIT_BOUND.toSeconds()
                + " s of the end", bad.isEmpty(), bad.isEmpty() ? "all " + outcome.exits().size() : "not: " + bad));
    }

    private void keys() {
        String counter = "redisson_lock_token:{" + outcome.lockName() + "}";
        Set<String> expectedOnLock = Set.of(counter);
        Set<String> expectedOnResource = Set.of(FencedResource.maxKey(outcome.run()),
                FencedResource.logKey(outcome.run()));
        Map<String, String> leftover = new TreeMap<>();
        outcome.lockServerKeys().forEach((key, what) -> {
            // a worker's client registry entry expires by itself (TTL 60 s): one whose close() could
            // not delete it (its connection killed at the end) is by design, not a leak
            boolean expiringRegistryEntry = key.startsWith(LockKeys.CLIENT_PREFIX) && !what.endsWith("pttl=-1");
            if (!expectedOnLock.contains(key) && !expiringRegistryEntry) {
                leftover.put("lock server: " + key, what);
            }
        });
        outcome.resourceServerKeys().forEach((key, what) -> {
            if (!expectedOnResource.contains(key)) {
                leftover.put("resource server: " + key, what);
            }
        });
        report.append("\nkeys at the end: lock server ").append(outcome.lockServerKeys()).append("; resource server ")
                .append(outcome.resourceServerKeys().keySet()).append('\n');
        checks.add(new Check("keys", "nothing left on Redis but the token counter " + counter
                + " and the resource's keys", leftover.isEmpty(), leftover.isEmpty() ? "none left" : "left: " + leftover));
    }

    /** Seconds since the go signal. */
    private double rel(long us) {
        return (us - outcome.goUs()) / 1e6;
    }
}
