package dev.padlock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A worker JVM of {@link ProcessLoad}: {@code threads} threads of one client contend for one
 * lock (fixed lease). It prints {@code READY}, then obeys lines on stdin: {@code RESUME},
 * {@code PAUSE} (answered by {@code PAUSED <count per thread>}) and {@code STOP} (answered by
 * {@code STOPPED}). Any failure prints {@code FAILED <text>} and exits 1.
 *
 * <p>Arguments: {@code <library> <target> <lock-name> <threads> <lease-ms>}, where the target is
 * {@link RedisTarget#argument()}: a server's URI, or {@code cluster:} and a Cluster's seeds.
 */
public final class LoadWorker {

    private LoadWorker() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            run(LockLibrary.byName(args[0]), RedisTarget.parse(args[1]), args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
        } catch (Throwable e) {
            System.out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private static void run(LockLibrary library, RedisTarget target, String lockName, int threads, long leaseMillis)
            throws Exception {
        try (LockLibrary.Client client = library.connect(target);
                LockLoop loop = new LockLoop("bench-worker", threads, i -> {
                    BenchLock lock = client.lock(lockName);
                    return () -> {
                        lock.lock(leaseMillis);
                        lock.unlock();
                    };
                })) {
            loop.pause();
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            boolean stopped = false;
            String line;
            while (!stopped && (line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "RESUME":
                        loop.resume();
                        break;
                    case "PAUSE":
                        System.out.println("PAUSED " + Arrays.stream(loop.pause())
                                .mapToObj(Long::toString).collect(Collectors.joining(" ")));
                        System.out.flush();
                        break;
                    case "STOP":
                        loop.pause();
                        stopped = true;
                        break;
                    default:
                        throw new IllegalArgumentException("Unknown command '" + line + "'");
                }
            }
            if (!stopped) {
                throw new IllegalStateException("stdin closed before STOP");
            }
        }
        System.out.println("STOPPED");
        System.out.flush();
    }
}
