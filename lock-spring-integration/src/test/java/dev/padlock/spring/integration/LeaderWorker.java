package dev.padlock.spring.integration;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A leader candidate in a process of its own, for {@link LeaderElectionTest}: prints
 * {@code GRANTED} once it leads, and lives until killed (at most two minutes).
 *
 * <p>Arguments: Redis URI, registry key, role, watchdog timeout in milliseconds.
 */
public final class LeaderWorker {
    private LeaderWorker() {
    }

    public static void main(String[] args) throws Exception {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3]))).build());
        RecordingCandidate candidate = new RecordingCandidate("worker", args[2], new AtomicInteger(), new AtomicInteger());
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                new PadlockLockRegistry(client, args[1]), candidate);
        initiator.setHeartBeatMillis(LeaderElectionTest.HEART_BEAT_MILLIS);
        initiator.setBusyWaitMillis(LeaderElectionTest.BUSY_WAIT_MILLIS);
        initiator.start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        if (candidate.firstGranted.await(2, TimeUnit.MINUTES)) {
            System.out.println("GRANTED");
            System.out.flush();
        }
        // not a synchronisation: the cap on the worker's life, for a test that never kills it
        TimeUnit.NANOSECONDS.sleep(deadline - System.nanoTime());
        initiator.stop();
        client.close();
    }
}
