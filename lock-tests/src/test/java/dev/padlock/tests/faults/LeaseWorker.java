package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.LockLease;
import dev.padlock.RLock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A worker JVM for {@link PausedLeaseHolderTest}, which stops and resumes it. It takes a lease of
 * one lock and prints what it is told, one line per event on standard output; commands come on
 * standard input.
 *
 * <ul>
 *   <li>{@code hold}: acquires a watchdog lease, prints {@code HELD}, then on each {@code check}
 *       line prints {@code SAFE <safeFor ms>}; {@code quit} ends.</li>
 *   <li>{@code wait}: prints {@code WAITING}, waits up to 120 s for a 1 s lease, then prints
 *       {@code ACQUIRED <epoch ms>} (or {@code TIMEOUT}), releases and ends.</li>
 * </ul>
 *
 * Arguments: {@code <redisUri> <lockName> <hold|wait> <watchdogMs>}.
 */
public final class LeaseWorker {
    static final long WAIT_LEASE_MS = 1_000;

    private LeaseWorker() {
    }

    public static void main(String[] args) throws Exception {
        int code = 0;
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3]))).build())) {
            RLock lock = client.getLock(args[1]);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (args[2].equals("hold")) {
                LockLease lease = lock.acquire();
                say("HELD");
                for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                    say("SAFE " + lease.safeFor().toMillis());
                }
                lease.close();
            } else {
                say("WAITING");
                Optional<LockLease> lease = lock.tryAcquire(Duration.ofSeconds(120), Duration.ofMillis(WAIT_LEASE_MS));
                say(lease.isPresent() ? "ACQUIRED " + System.currentTimeMillis() : "TIMEOUT");
                lease.ifPresent(LockLease::close);
            }
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            code = 1;
        }
        System.out.flush();
        Runtime.getRuntime().halt(code);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
