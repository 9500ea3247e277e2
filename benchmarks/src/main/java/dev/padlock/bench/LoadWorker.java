package dev.padlock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A worker JVM of {@link ProcessLoad}: {@code threads} threads of one client contend for one
 * {@link ContendedLock} (fixed lease). It prints {@code READY}, then obeys lines on stdin:
 * {@code RESUME}, {@code PAUSE} (answered by {@code PAUSED <count per thread>}), {@code COUNT}
 * (answered by {@code COUNTS <count per thread>} without pausing) and {@code STOP} (answered by
 * {@code STOPPED}, then it exits). Any failure prints {@code FAILED <text>} and exits 1.
 *
 * <p>Arguments: {@code <library> <target> <lock-name> <threads> <lease-ms> <lock> <read-ratio>
 * <seed>}, where the target is {@link RedisTarget#argument()} (a server's URI, or {@code cluster:}
 * and a Cluster's seeds), the lock a {@link ContendedLock} name, the read ratio the share of read
 * acquisitions of a read-write lock (0 to 1; ignored by the other kinds), and thread {@code i}
 * draws reads and writes from a {@link java.util.Random} of {@code seed + i}.
 */
public final class LoadWorker {

    private LoadWorker() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            if (args.length != 8) {
                throw new IllegalArgumentException("Expected 8 arguments, got " + Arrays.toString(args));
            }
            double readRatio = Double.parseDouble(args[6]);
            if (!(readRatio >= 0 && readRatio <= 1)) {
                throw new IllegalArgumentException("The read ratio must be within 0 and 1, got " + args[6]);
            }
            run(LockLibrary.byName(args[0]), RedisTarget.parse(args[1]), args[2], Integer.parseInt(args[3]),
                    Long.parseLong(args[4]), ContendedLock.valueOf(args[5]), readRatio, Long.parseLong(args[7]));
        } catch (Throwable e) {
            System.out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private static void run(LockLibrary library, RedisTarget target, String lockName, int threads, long leaseMillis,
            ContendedLock lock, double readRatio, long seed) throws Exception {
        try (LockLibrary.Client client = library.connect(target);
                LockLoop loop = new LockLoop("bench-worker", threads,
                        i -> lock.acquisition(client, lockName, leaseMillis, readRatio, seed + i))) {
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
                    case "COUNT":
                        System.out.println("COUNTS " + Arrays.stream(loop.counts())
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
