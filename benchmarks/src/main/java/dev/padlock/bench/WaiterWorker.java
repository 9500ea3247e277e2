package dev.padlock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The waiter JVM of scenario 6c: one client and one lock; the bench JVM holds the lock meanwhile.
 * It prints {@code READY}, then obeys lines on stdin: {@code WAIT} (answered by {@code WAITING}
 * right before {@code lock(lease)}, then, once that returned and the lock is released again, by
 * {@code ACQUIRED <System.nanoTime() at the return>}) and {@code STOP} (answered by
 * {@code STOPPED}, then it exits). Any failure prints {@code FAILED <text>} and exits 1. The bench
 * JVM bounds every wait and destroys the process when an answer does not come.
 *
 * <p>Arguments: {@code <library> <target> <lock-name> <lease-ms>}, the target as
 * {@link RedisTarget#argument()}.
 */
public final class WaiterWorker {

    private WaiterWorker() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            if (args.length != 4) {
                throw new IllegalArgumentException("Expected 4 arguments, got " + args.length);
            }
            run(LockLibrary.byName(args[0]), RedisTarget.parse(args[1]), args[2], Long.parseLong(args[3]));
        } catch (Throwable e) {
            System.out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private static void run(LockLibrary library, RedisTarget target, String lockName, long leaseMillis)
            throws Exception {
        try (LockLibrary.Client client = library.connect(target)) {
            BenchLock lock = client.lock(lockName);
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            boolean stopped = false;
            String line;
            while (!stopped && (line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "WAIT":
                        System.out.println("WAITING");
                        System.out.flush();
                        lock.lock(leaseMillis);
                        long acquiredAt = System.nanoTime();
                        lock.unlock();
                        System.out.println("ACQUIRED " + acquiredAt);
                        System.out.flush();
                        break;
                    case "STOP":
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
