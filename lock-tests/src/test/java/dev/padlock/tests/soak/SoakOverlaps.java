package dev.padlock.tests.soak;

import dev.padlock.tests.soak.SoakAnalysis.Outage;
import dev.padlock.tests.soak.SoakEvents.Acquisition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The soak's {@code overlaps} check ({@link SoakAnalysis}): every pair of holders whose intervals
 * intersect and what explains it, and what each waiter stop met.
 *
 * <p>A holder's interval runs from when it was told (its acquisition's future completed, stamped
 * in the future's callback) to when its unlock call began, both on the wall clock of one machine.
 * Redis granted the lock before the first and dropped it after the second, so the intervals of
 * two rightful holders never intersect.
 *
 * <p>An overlap of holders A (told first) and B is explained only by A having lost its lease:
 * <ol>
 *   <li>A held a fixed lease and B was told at least a lease after A was, less
 *       {@link #GRANT_LAG_US} for the time between Redis's grant and A's stamp;</li>
 *   <li>or the lock's server was killed (its data lost) after A was told and before B was;</li>
 *   <li>or A's process was stopped after A was told (a stop outlasts every lease), the stop
 *       beginning before A's unlock and before B was told. A was told before the stop when its
 *       stamp is older than the stop's resume stamp, taken just before {@code SIGCONT} is sent:
 *       a stopped JVM stamps nothing, and after it resumes every stamp is later.</li>
 *   <li>or one of the two lost its lease while its stamp was blind to a stop that came just as
 *       it was told. Between the engine's last look at the lease (a reply read within it) and the
 *       stamp, the engine notes the hold, tells the queue and completes a few futures; a thread
 *       descheduled there on a busy machine, or stopped there with its JVM, stamps only after the
 *       resume. So that holder's process was stopped after its acquisition began, it was stamped
 *       within {@link #BLIND_US} of the resume, the stop was not aimed at its wait (a waiter stop
 *       comes after its worker said it still waits), and the other holder was told no earlier than
 *       its lease could have run out after the stop began (a stop outlasts every lease; a watchdog
 *       lease is the watchdog's, {@link SoakRun#WATCHDOG_MS}, since nothing renews it while its
 *       process is stopped). The stamped-late holder is B when the other was told before the
 *       resume, and A when the other was told just after its late stamp.</li>
 * </ol>
 * Anything else is unexplained: two rightful holders at once. That includes a holder told "held"
 * only as its JVM resumed from a stop aimed at its wait, on a grant that ran out while it was
 * stopped. Whether the engine takes a reply or grant read after a pause as "held" on its own is
 * checked where time is exact: the queue and acquisition tests with a manual clock, and the
 * simulator's process pauses.
 */
final class SoakOverlaps {

    /**
     * How much earlier than its stamp a holder's lease may have begun: Redis grants the lock, then
     * the reply crosses loopback and a client thread completes the future. A generous upper bound.
     */
    static final long GRANT_LAG_US = 10_000;

    /**
     * How long after its JVM resumes a holder told just before the stop may be stamped: the
     * threads of a resumed JVM run again within this on a busy machine. A generous upper bound.
     */
    static final long BLIND_US = 500_000;

    static final String UNEXPLAINED = "UNEXPLAINED";

    private final List<Acquisition> acquisitions;
    private final List<Outage> outages;
    private final long goUs;

    /** {@code acquisitions} by the time they were told; {@code goUs} is the run's start, for the report. */
    SoakOverlaps(List<Acquisition> acquisitions, List<Outage> outages, long goUs) {
        this.acquisitions = acquisitions;
        this.outages = outages;
        this.goUs = goUs;
    }

    /** Finds and explains every overlap, reports them, and returns the check. */
    SoakAnalysis.Check check(StringBuilder report) {
        Map<String, Integer> byExplanation = new TreeMap<>();
        Map<String, Set<String>> holdersByExplanation = new TreeMap<>();
        List<String> unexplained = new ArrayList<>();
        int overlaps = 0;
        for (int i = 0; i < acquisitions.size(); i++) {
            Acquisition a = acquisitions.get(i);
            for (int j = i + 1; j < acquisitions.size() && acquisitions.get(j).toldUs() < a.releaseStartUs(); j++) {
                Acquisition b = acquisitions.get(j);
                overlaps++;
                String why = explain(a, b);
                byExplanation.merge(why, 1, Integer::sum);
                holdersByExplanation.computeIfAbsent(why, k -> new TreeSet<>()).add(a.who());
                if (why.equals(UNEXPLAINED)) {
                    unexplained.add(describe(a) + " and " + describe(b) + faultsAround(a, b));
                }
            }
        }
        report.append("\noverlaps of two holders: ").append(overlaps).append(" pairs, by the first holder's loss\n");
        byExplanation.forEach((why, count) -> report.append(String.format("  %5d pairs, %3d first holders  %s%n",
                count, holdersByExplanation.get(why).size(), why)));
        unexplained.stream().limit(20).forEach(text -> report.append("  unexplained: ").append(text).append('\n'));
        return new SoakAnalysis.Check("overlaps",
                "every overlap is explained by a holder that lost its lease or was paused after it was told",
                unexplained.isEmpty(), overlaps + " overlaps, " + unexplained.size() + " unexplained");
    }

    String explain(Acquisition a, Acquisition b) {
        if (a.leaseMs() > 0 && b.toldUs() >= a.toldUs() - GRANT_LAG_US + a.leaseMs() * 1_000) {
            if (a.stallMs() != null) {
                return "fixed lease ran out: holder told to stall past it";
            }
            if (outages.stream().anyMatch(o -> o.process() == a.process() && during(o, a.toldUs(), b.toldUs()))) {
                return "fixed lease ran out: holder's process stopped";
            }
            if (outages.stream().anyMatch(o -> o.kind().equals("SERVER_PAUSE") && during(o, a.toldUs(), b.toldUs()))) {
                return "fixed lease ran out: during a server pause";
            }
            if (outages.stream().anyMatch(o -> o.kind().equals("RESTART") && during(o, a.toldUs(), b.toldUs()))) {
                return "fixed lease ran out: across a restart";
            }
            return "fixed lease ran out: holder slow (no fault)";
        }
        for (Outage o : outages) {
            if (o.kind().equals("RESTART") && a.toldUs() <= o.startUs() && o.startUs() < b.toldUs()) {
                return "data lost: server killed and restarted empty";
            }
        }
        for (Outage o : outages) {
            if (o.process() == a.process() && a.toldUs() < o.resumeUs()
                    && o.startUs() < Math.min(a.releaseStartUs(), b.toldUs())) {
                return "lease ran out: holder's process stopped after it was told (" + o.kind() + ")";
            }
        }
        for (Outage o : outages) {
            if (mayHaveBeenToldAsItStopped(b, o) && a.toldUs() >= o.startUs() + leaseBoundMs(b) * 1_000 - GRANT_LAG_US) {
                return "lease ran out: later holder told as its process stopped, stamped after the resume ("
                        + o.kind() + ")";
            }
            if (mayHaveBeenToldAsItStopped(a, o) && b.toldUs() >= o.startUs() + leaseBoundMs(a) * 1_000 - GRANT_LAG_US) {
                return "lease ran out: earlier holder told as its process stopped, stamped after the resume ("
                        + o.kind() + ")";
            }
        }
        return UNEXPLAINED;
    }

    /** The longest {@code x}'s TTL can last unrenewed: its fixed lease, or the watchdog's lease. */
    private static long leaseBoundMs(Acquisition x) {
        return x.leaseMs() > 0 ? x.leaseMs() : SoakRun.WATCHDOG_MS;
    }

    /**
     * Whether {@code b} may have been told just before stop {@code o} of its process, its stamp
     * blind to the stop: see the class notes, case 4.
     */
    private static boolean mayHaveBeenToldAsItStopped(Acquisition b, Outage o) {
        SoakRun.Waiter aimedAt = o.aimedAt();
        boolean aimedAtB = aimedAt != null && aimedAt.thread() == b.thread() && aimedAt.attemptUs() == b.attemptUs();
        return o.process() == b.process() && !aimedAtB && b.attemptUs() < o.startUs()
                && o.resumeUs() <= b.toldUs() && b.toldUs() - o.resumeUs() <= BLIND_US;
    }

    /** Whether outage {@code o} overlaps the time from {@code fromUs} to {@code toUs}. */
    private static boolean during(Outage o, long fromUs, long toUs) {
        return o.startUs() < toUs && o.endUs() > fromUs;
    }

    private String describe(Acquisition a) {
        return String.format("%s (%s, lease %d ms, began +%.3f s, told +%.3f s, returned +%.3f s, unlock at +%.3f s %s)",
                a.who(), a.op(), a.leaseMs(), rel(a.attemptUs()), rel(a.toldUs()), rel(a.returnedUs()),
                rel(a.releaseStartUs()), a.release());
    }

    /** The outages from A's attempt to B's stamp, with their stamps, for an unexplained pair. */
    private String faultsAround(Acquisition a, Acquisition b) {
        long from = Math.min(a.attemptUs(), b.attemptUs()) - 1_000_000;
        List<String> near = outages.stream().filter(o -> during(o, from, b.toldUs() + 1_000_000))
                .map(this::describe).toList();
        return near.isEmpty() ? "; no fault near" : "; faults near: " + String.join(", ", near);
    }

    private String describe(Outage o) {
        return String.format("%s from +%.3f s, resume sent +%.3f s, ended +%.3f s", o.kind()
                + (o.process() >= 0 ? "(w" + o.process() + ")" : ""), rel(o.startUs()), rel(o.resumeUs()),
                rel(o.endUs()));
    }

    /**
     * Reports how many holders were told before their JVM was stopped and woke after it resumed,
     * and what each waiter stop met: the wait it was aimed at, and how that acquisition ended (told
     * held before the stop or after it resumed, timed out, failed).
     */
    void stops(List<SoakRun.Applied> applied, SoakEvents events, StringBuilder report) {
        long toldBeforeAStop = acquisitions.stream().filter(a -> outages.stream().anyMatch(o -> o.process()
                == a.process() && a.toldUs() < o.startUs() && o.resumeUs() < a.returnedUs())).count();
        report.append("\nholders told before their JVM was stopped that woke after it resumed: ")
                .append(toldBeforeAStop).append('\n');
        List<SoakRun.Applied> stops = applied.stream()
                .filter(a -> a.fault().kind() == FaultSchedule.Kind.WAITER_STOP).toList();
        if (stops.isEmpty()) {
            return;
        }
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        for (SoakRun.Applied stop : stops) {
            SoakRun.Waiter waiter = stop.waiter();
            if (waiter == null) {
                outcomes.merge("no wait to stop", 1, Integer::sum);
                lines.add(String.format("w%d at +%.3f s: %s", stop.fault().worker(), rel(stop.startUs()), stop.note()));
                continue;
            }
            int p = stop.fault().worker();
            String outcome = outcome(p, waiter, stop, events);
            outcomes.merge(outcome.replaceAll(" [+(].*", ""), 1, Integer::sum);
            long othersTold = acquisitions.stream().filter(a -> a.process() != p && a.toldUs() > stop.startUs()
                    && a.toldUs() < stop.resumeUs()).count();
            lines.add(String.format("w%dt%d began +%.3f s, stopped +%.3f s (%d ms later) to +%.3f s, %d holders "
                            + "elsewhere meanwhile: %s", p, waiter.thread(), rel(waiter.attemptUs()), rel(stop.startUs()),
                    (stop.startUs() - waiter.attemptUs()) / 1_000, rel(stop.resumeUs()), othersTold, outcome));
        }
        report.append("\nwaits stopped (a worker stopped just after one of its threads began an acquisition): ")
                .append(stops.size()).append(' ').append(outcomes).append('\n');
        lines.forEach(line -> report.append("  ").append(line).append('\n'));
    }

    private String outcome(int p, SoakRun.Waiter waiter, SoakRun.Applied stop, SoakEvents events) {
        Optional<Acquisition> held = acquisitions.stream()
                .filter(a -> a.process() == p && a.thread() == waiter.thread() && a.attemptUs() == waiter.attemptUs())
                .findFirst();
        if (held.isPresent()) {
            Acquisition a = held.get();
            return a.toldUs() < stop.resumeUs() ? String.format("held before the stop (+%.3f s)", rel(a.toldUs()))
                    : String.format("held after resuming (+%.3f s, %d ms after SIGCONT was sent)", rel(a.toldUs()),
                            (a.toldUs() - stop.resumeUs()) / 1_000);
        }
        Optional<SoakEvents.Timeout> timeout = events.timeouts().stream()
                .filter(t -> t.process() == p && t.thread() == waiter.thread() && t.attemptUs() == waiter.attemptUs())
                .findFirst();
        if (timeout.isPresent()) {
            return String.format("timed out (+%.3f s)", rel(timeout.get().toldUs()));
        }
        return events.failures().stream()
                .filter(f -> f.process() == p && f.thread() == waiter.thread() && f.attemptUs() == waiter.attemptUs())
                .findFirst().map(f -> String.format("failed (+%.3f s, %s)", rel(f.failUs()), f.kind()))
                .orElse("no outcome logged");
    }

    /** Seconds since the go signal. */
    private double rel(long us) {
        return (us - goUs) / 1e6;
    }
}
