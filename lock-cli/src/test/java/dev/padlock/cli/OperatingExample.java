package dev.padlock.cli;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.shedlock.PadlockLockProvider;
import dev.padlock.spi.LockKeys;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.awaitility.Awaitility;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The situation docs/operating/cli.md shows with {@code padlock show}: {@code orders:42} held by
 * a thread of one Padlock client, waited for by another thread of that client and by threads of
 * two others (two of billing-worker, one of shipping-worker); {@code invoices:7} held by
 * Redisson; the ShedLock job {@code nightly-report} held through lock-shedlock. Holds them until
 * its standard input closes, at most 10 minutes.
 *   java -cp ... dev.padlock.cli.OperatingExample redis://127.0.0.1:PORT
 */
public final class OperatingExample {
    private OperatingExample() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        CountDownLatch done = new CountDownLatch(1);
        try (LockClient orders = client(uri, "orders-service");
                LockClient billing = client(uri, "billing-worker");
                LockClient shipping = client(uri, "shipping-worker")) {
            RLock held = orders.getLock("orders:42");
            held.lock();
            Thread.sleep(1500); // not a synchronisation: wall time, so that "since" shows a hold of some age
            for (LockClient waiter : new LockClient[] {orders, billing, billing, shipping}) {
                Thread thread = new Thread(() -> {
                    waiter.getLock("orders:42").lock();
                    waiter.getLock("orders:42").unlock();
                }, "waiter");
                thread.setDaemon(true);
                thread.start();
            }
            SimpleLock report = new PadlockLockProvider(orders).lock(new LockConfiguration(ClockProvider.now(),
                    "nightly-report", Duration.ofMinutes(30), Duration.ofMinutes(5))).orElseThrow();
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            RedissonClient redisson = Redisson.create(config);
            CountDownLatch redissonHolds = new CountDownLatch(1);
            Thread redissonHolder = new Thread(() -> {
                redisson.getLock("invoices:7").lock();
                redissonHolds.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "redisson-holder");
            redissonHolder.setDaemon(true);
            redissonHolder.start();
            // "ready" only once Redis shows what the docs show: Redisson's hold, the two other clients in
            // line, and orders-service listening on its grant channel behind its own holder
            if (!redissonHolds.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Redisson did not take invoices:7 within 30 s");
            }
            String grantChannel = LockKeys.grantChannelPrefix("orders:42") + orders.getId();
            Awaitility.await("the waiters of orders:42 seen on Redis").atMost(Duration.ofSeconds(30))
                    .until(() -> redisson.getList(LockKeys.waiterQueue("orders:42")).size() == 2
                            && redisson.getTopic(grantChannel).countSubscribers() >= 1);
            System.out.println("ready");
            System.out.flush();
            Thread stdin = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // until closed
                    }
                } catch (java.io.IOException e) {
                    // closed
                }
                done.countDown();
            });
            stdin.setDaemon(true);
            stdin.start();
            done.await(10, TimeUnit.MINUTES);
            redisson.shutdown();
            report.unlock();
            held.unlock();
        }
    }

    private static LockClient client(String uri, String application) {
        return LockClient.create(LockConfig.builder().redisUri(uri).applicationName(application).build());
    }
}
