package dev.padlock.tests.behaviour;

import dev.padlock.RLock;
import dev.padlock.tests.support.Clients;
import dev.padlock.tests.support.Contention;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.junit.RedisTest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On JDK 21+, virtual threads are owners like any other: each has its own id and hold count. */
@RedisTest
class VirtualThreadsTest {
    private static final int THREADS = 64;
    private static final int ROUNDS = 5;

    @RegisterExtension
    final Clients clients = new Clients();

    @Test
    void manyVirtualThreadsKeepACounterExact(RedisAdmin admin) throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
        String name = Clients.uniqueName("virtual");
        String counter = name + ":counter";
        RLock lock = clients.open().getLock(name);
        ExecutorService virtual = (ExecutorService) Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        Contention.run(virtual, THREADS, task -> {
            for (int i = 0; i < ROUNDS; i++) {
                lock.lock();
                try {
                    assertThat(lock.getHoldCount()).isEqualTo(1);
                    Contention.incrementNonAtomically(admin.commands(), counter);
                } finally {
                    lock.unlock();
                }
            }
        });
        assertThat(admin.commands().get(counter)).isEqualTo(Integer.toString(THREADS * ROUNDS));
        assertThat(admin.commands().exists(name)).isZero();
        admin.commands().del(counter);
    }
}
