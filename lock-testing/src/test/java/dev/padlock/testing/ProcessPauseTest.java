package dev.padlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessPause#stop} returns only once every thread of the process is stopped: a child JVM
 * whose threads spin is stopped, all its threads are in state {@code T}, and it uses no CPU until
 * it is resumed.
 */
class ProcessPauseTest {

    /** A child JVM: four threads that spin until it is killed; prints READY once they run. */
    public static final class Spinner {
        private Spinner() {
        }

        public static void main(String[] args) {
            for (int i = 0; i < 4; i++) {
                Thread spinner = new Thread(() -> {
                    long n = 0;
                    while (true) {
                        n++;
                        if (n == Long.MAX_VALUE) {
                            System.out.println(n);
                        }
                    }
                });
                spinner.setDaemon(false);
                spinner.start();
            }
            System.out.println("READY");
            System.out.flush();
        }
    }

    @Test
    void stopReturnsOnceEveryThreadIsStoppedAndResumeLetsThemRun() throws Exception {
        Path proc = Path.of("/proc/self/task");
        assumeThat(Files.isDirectory(proc)).as("/proc (Linux)").isTrue();
        Process child = ChildJvm.of(Spinner.class).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("READY");

            ProcessPause.stop(child);
            assertThat(states(child)).as("every thread's state, read as stop returned").allMatch(s -> s == 'T' || s == 't');
            long cpu = cpuTicks(child);
            // absence of progress, over a window: a stopped process uses no CPU however busy the machine is
            Thread.sleep(200);
            assertThat(cpuTicks(child)).as("CPU time while stopped").isEqualTo(cpu);

            ProcessPause.resume(child);
            await().atMost(Duration.ofSeconds(60)).until(() -> cpuTicks(child) > cpu);
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }

    /** The state of each thread of {@code process}, from /proc. */
    private static List<Character> states(Process process) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(process.pid()), "task"))) {
            return tasks.map(task -> {
                try {
                    return field(Files.readString(task.resolve("stat")), 0).charAt(0);
                } catch (IOException gone) {
                    return 'T'; // a thread that ended runs no more
                }
            }).toList();
        }
    }

    /** utime + stime of {@code process}, in clock ticks. */
    private static long cpuTicks(Process process) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "stat"));
        return Long.parseLong(field(stat, 11)) + Long.parseLong(field(stat, 12));
    }

    /** Field {@code index} after the command name in a /proc stat line (0: the state). */
    private static String field(String stat, int index) {
        return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ")[index];
    }
}
