package dev.padlock.tests.faults;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.PermitLease;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A worker JVM for {@link KilledPermitHolderTest}, which kills it: it takes a permit of a
 * permit-expirable semaphore with a watchdog lease, prints {@code HELD <permitId>}, and holds it,
 * renewed, until killed (or until its standard input ends, when it releases it).
 *
 * Arguments: {@code <redisUri> <semaphoreName> <watchdogMs>}.
 */
public final class PermitWorker {
    private PermitWorker() {
    }

    public static void main(String[] args) throws Exception {
        int code = 0;
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2]))).build())) {
            PermitLease permit = client.getPermitExpirableSemaphore(args[1]).acquire();
            System.out.println("HELD " + permit.permitId());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                System.out.println("SAFE " + permit.safeFor().toMillis());
                System.out.flush();
            }
            permit.close();
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            code = 1;
        }
        System.out.flush();
        Runtime.getRuntime().halt(code);
    }
}
