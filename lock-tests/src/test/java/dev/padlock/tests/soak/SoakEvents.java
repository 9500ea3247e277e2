package dev.padlock.tests.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The events of a soak run's workers, read from their {@link SoakLog}s: each acquisition with its
 * stall, write and unlock; the acquire exceptions; timeouts, lease-lost notices and stray holds.
 */
final class SoakEvents {

    /**
     * One acquisition: the call ({@code waitMs} -1 when unbounded, {@code leaseMs} 0 for a
     * watchdog lease), when it began, when its future completed ({@code toldUs}, stamped in the
     * future's callback) and when its thread woke from joining it, a fenced one's token, when its
     * unlock began and how it ended ({@code OK}, {@code NOT_HELD}, an exception's kind, or
     * {@code NO_UNLOCK} when the log ends first), and its stall and write when any.
     */
    record Acquisition(int process, int thread, long seq, String op, long waitMs, long leaseMs, long attemptUs,
            long toldUs, long returnedUs, Long token, long releaseStartUs, String release, Long stallMs,
            Write write) {
        String who() {
            return "w" + process + "t" + thread + "#" + seq;
        }
    }

    /** A fenced holder's write to the resource: accepted or refused, and the resource's highest token before. */
    record Write(long startUs, long endUs, long token, boolean accepted, String previousMax) {
    }

    /** An acquisition told it did not get the lock within its wait, at {@code toldUs}. */
    record Timeout(int process, int thread, String op, long attemptUs, long toldUs) {
    }

    /** An acquire call that threw (its future completed exceptionally at {@code failUs}). */
    record Failure(int process, int thread, String op, long waitMs, long attemptUs, long failUs, String kind,
            String message) {
        /** The deadline of the call, or {@code Long.MAX_VALUE} without a wait bound. */
        long deadlineUs() {
            return waitMs < 0 ? Long.MAX_VALUE : attemptUs + waitMs * 1_000;
        }
    }

    /**
     * Redis said thread {@code thread} of worker {@code process} still held the lock {@code after}
     * {@code UNLOCK} (of its only hold), {@code FAIL} or {@code TIMEOUT}; {@code firstOfEpisode}
     * when the thread's previous check found nothing.
     */
    record Stray(int process, int thread, String after, long us, boolean firstOfEpisode) {
    }

    private final List<Acquisition> acquisitions = new ArrayList<>();
    private final List<Failure> failures = new ArrayList<>();
    private final List<Timeout> timeouts = new ArrayList<>();
    private final Map<Integer, Integer> lostPerProcess = new TreeMap<>();
    private final List<Stray> strays = new ArrayList<>();

    private SoakEvents() {
    }

    /** Reads the logs of {@code exits}' workers (a missing log is a worker that never started). */
    static SoakEvents read(List<SoakRun.WorkerExit> exits) throws IOException {
        SoakEvents events = new SoakEvents();
        for (SoakRun.WorkerExit exit : exits) {
            events.read(exit.index(), exit);
        }
        events.acquisitions.sort(Comparator.comparingLong(Acquisition::toldUs));
        return events;
    }

    /** Every acquisition, by the time it was told (its future completed). */
    List<Acquisition> acquisitions() {
        return acquisitions;
    }

    List<Failure> failures() {
        return failures;
    }

    List<Timeout> timeouts() {
        return timeouts;
    }

    Map<Integer, Integer> timeoutsPerProcess() {
        Map<Integer, Integer> perProcess = new TreeMap<>();
        timeouts.forEach(t -> perProcess.merge(t.process(), 1, Integer::sum));
        return perProcess;
    }

    Map<Integer, Integer> lostPerProcess() {
        return lostPerProcess;
    }

    List<Stray> strays() {
        return strays;
    }

    private void read(int p, SoakRun.WorkerExit exit) throws IOException {
        if (!Files.exists(exit.log())) {
            return;
        }
        Map<String, Pending> open = new HashMap<>();
        // Stray-hold episodes: a thread's run of STRAY answers, ended by a check that found none.
        Map<String, Boolean> inStray = new HashMap<>();
        Map<String, Boolean> checkPending = new HashMap<>();
        long endUs = exit.exitedUs();
        for (String line : Files.readAllLines(exit.log(), StandardCharsets.UTF_8)) {
            String[] f = line.split(" ", line.startsWith("FAIL ") ? 9 : -1); // a failure's message comes last
            if (Set.of("ACQ", "REL", "FAIL", "TIMEOUT").contains(f[0])) {
                if (checkPending.getOrDefault(f[1], false)) {
                    inStray.put(f[1], false);
                }
                checkPending.put(f[1], f[0].equals("FAIL") || f[0].equals("TIMEOUT")
                        || (f[0].equals("REL") && f[5].equals("OK")));
            }
            boolean episodeStart = f[0].equals("STRAY") && !inStray.getOrDefault(f[1], false);
            if (f[0].equals("STRAY")) {
                inStray.put(f[1], true);
                checkPending.put(f[1], false);
            }
            switch (f[0]) {
                case "ACQ" -> open.put(f[1] + "#" + f[2], new Pending(f, null, null));
                case "STALL" -> open.computeIfPresent(f[1] + "#" + f[2],
                        (k, v) -> new Pending(v.acq(), Long.parseLong(f[4]), v.write()));
                case "WRITE" -> open.computeIfPresent(f[1] + "#" + f[2], (k, v) -> new Pending(v.acq(), v.stall(),
                        new Write(Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), "A".equals(f[6]),
                                f[7])));
                case "REL" -> {
                    Pending done = open.remove(f[1] + "#" + f[2]);
                    if (done != null) {
                        acquisitions.add(acquisition(p, done, Long.parseLong(f[3]), f[5]));
                    }
                }
                case "TIMEOUT" -> timeouts.add(new Timeout(p, Integer.parseInt(f[1]), f[2], Long.parseLong(f[5]),
                        Long.parseLong(f[6])));
                case "FAIL" -> failures.add(new Failure(p, Integer.parseInt(f[1]), f[2], Long.parseLong(f[3]),
                        Long.parseLong(f[5]), Long.parseLong(f[6]), f[7], f.length > 8 ? f[8] : ""));
                case "LOST" -> lostPerProcess.merge(p, 1, Integer::sum);
                case "STRAY" -> strays.add(new Stray(p, Integer.parseInt(f[1]), f[2], Long.parseLong(f[3]),
                        episodeStart));
                case "END" -> endUs = Long.parseLong(f[1]);
                case "START", "THREAD", "WAITSTOP", "HOLD", "LETGO" -> {
                    // nothing to judge
                }
                default -> throw new IllegalStateException("unknown event in " + exit.log() + ": " + line);
            }
        }
        for (Pending never : open.values()) {
            acquisitions.add(acquisition(p, never, endUs, "NO_UNLOCK"));
        }
    }

    /** An acquisition read so far: its ACQ line's fields, and its stall and write when any. */
    private record Pending(String[] acq, Long stall, Write write) {
    }

    private static Acquisition acquisition(int p, Pending pending, long releaseStartUs, String release) {
        String[] f = pending.acq();
        return new Acquisition(p, Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3], Long.parseLong(f[4]),
                Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
                "-".equals(f[9]) ? null : Long.valueOf(f[9]), releaseStartUs, release, pending.stall(),
                pending.write());
    }
}
