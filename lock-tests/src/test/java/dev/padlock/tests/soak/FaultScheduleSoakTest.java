package dev.padlock.tests.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-schedule soak: {@value #DEFAULT_PROCESSES} worker JVMs of {@value #DEFAULT_THREADS}
 * threads on one lock name and a fenced resource beside it, while a seeded schedule of faults
 * hits the lock's redis-server (a holder stalled past its lease, a worker stopped, a worker stopped
 * just after one of its threads began to wait, {@code CLIENT KILL}, the server paused, killed and
 * restarted empty, {@code SCRIPT FLUSH}); then every check of {@link SoakAnalysis} is printed with
 * the run's figures, and asserted.
 *
 * <p>In CI it runs {@value #DEFAULT_SECONDS} s with a fixed seed; {@code scripts/soak.sh [seconds]
 * [seed]} runs it longer. System properties:
 * <ul>
 *   <li>{@code padlock.soak.seconds}, {@code padlock.soak.seed}, {@code padlock.soak.processes},
 *       {@code padlock.soak.threads}: the run;</li>
 *   <li>{@code padlock.soak.dir}: where the logs and the report go (default: a temporary
 *       directory, deleted after the test);</li>
 *   <li>{@code padlock.soak.check.<id>=false}: report check {@code <id>} but do not assert it.
 *       Every check is asserted by default; the ids are {@code overlaps}, {@code fencing},
 *       {@code rideThrough}, {@code quietExceptions}, {@code strayHolds}, {@code exits}, {@code keys}.</li>
 * </ul>
 */
@Tag("faults")
class FaultScheduleSoakTest {

    static final int DEFAULT_SECONDS = 40;
    /**
     * Its first 40 s hold every kind of fault, a restart of a hung server, a worker stop and two
     * waiter stops (a worker JVM stopped 0.18 and 0.27 s into one of its threads' waits).
     */
    static final long DEFAULT_SEED = 629;
    static final int DEFAULT_PROCESSES = 4;
    static final int DEFAULT_THREADS = 3;

    @Test
    void locksRideThroughAFaultSchedule(@TempDir Path temporary) throws Exception {
        String dir = System.getProperty("padlock.soak.dir", "");
        Path directory = dir.isBlank() ? temporary : Files.createDirectories(Path.of(dir));
        SoakRun.Settings settings = new SoakRun.Settings(
                Integer.getInteger("padlock.soak.processes", DEFAULT_PROCESSES),
                Integer.getInteger("padlock.soak.threads", DEFAULT_THREADS),
                Long.getLong("padlock.soak.seconds", DEFAULT_SECONDS) * 1_000,
                Long.getLong("padlock.soak.seed", DEFAULT_SEED),
                directory);

        SoakAnalysis analysis = SoakAnalysis.of(new SoakRun(settings).run());

        String report = analysis.report();
        System.out.println(report);
        Files.writeString(directory.resolve("report.txt"), report, StandardCharsets.UTF_8);
        List<SoakAnalysis.Check> failed = analysis.checks().stream()
                .filter(check -> !check.passed() && asserted(check.id()))
                .toList();
        assertTrue(failed.isEmpty(), () -> "failed soak checks (seed " + settings.seed() + "): "
                + failed.stream().map(c -> c.id() + ": " + c.title() + " (" + c.figures() + ")")
                        .collect(Collectors.joining("; ")) + "\n" + report);
    }

    /** Whether check {@code id} is asserted: yes unless {@code padlock.soak.check.<id>=false}. */
    private static boolean asserted(String id) {
        return Boolean.parseBoolean(System.getProperty("padlock.soak.check." + id, "true"));
    }
}
