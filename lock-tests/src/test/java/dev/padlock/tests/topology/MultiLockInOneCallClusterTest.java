package dev.padlock.tests.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.testing.CommandStats;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisCluster;
import dev.padlock.testing.RedisServerProcess;
import dev.padlock.tests.support.Clients;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 41 on a 3-master Cluster: a multi lock of plain locks is one script call per slot each way,
 * the calls of all slots sent together; names that share a hash tag are one call each way, names
 * spread over the masters one per slot (a Cluster refuses keys of several slots in one script), and
 * either way all or nothing.
 */
class MultiLockInOneCallClusterTest {
    private static RedisCluster cluster;
    private static final List<RedisAdmin> admins = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
        for (RedisServerProcess master : cluster.masters()) {
            admins.add(RedisAdmin.connect(master.uri()));
        }
    }

    @AfterAll
    static void stop() {
        admins.forEach(RedisAdmin::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    private static LockClient client() {
        return LockClient.create(LockConfig.builder().clusterUris(cluster.seedUris().toArray(String[]::new))
                .clientRegistry(false).build());
    }

    private static RLock multi(LockClient client, List<String> names) {
        return client.getMultiLock(names.stream().map(client::getLock).toArray(RLock[]::new));
    }

    private static Map<RedisAdmin, CommandStats> stats() {
        Map<RedisAdmin, CommandStats> stats = new HashMap<>();
        admins.forEach(admin -> stats.put(admin, admin.commandStats()));
        return stats;
    }

    /** The script calls (EVALSHA) every master ran since {@code before}. */
    private static long scriptCalls(Map<RedisAdmin, CommandStats> before) {
        long calls = 0;
        for (RedisAdmin admin : admins) {
            calls += CommandStats.delta(before.get(admin), admin.commandStats()).calls("evalsha");
        }
        return calls;
    }

    private static long held(List<String> names) {
        long held = 0;
        for (String name : names) {
            held += admins.stream().filter(admin -> admin.uri().equals(cluster.masterForKey(name).uri()))
                    .mapToLong(admin -> admin.commands().exists(name)).sum();
        }
        return held;
    }

    @Test
    void namesOfOneHashTagAreOneCallEachWay() throws Exception {
        String tag = "{" + Clients.uniqueName("tag") + "}";
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            names.add(tag + ":" + i);
        }
        try (LockClient client = client()) {
            multi(client, names.subList(0, 2)).lock(); // loads the scripts where the tag lives
            multi(client, names.subList(0, 2)).unlock();
            RLock multi = multi(client, names);
            Map<RedisAdmin, CommandStats> before = stats();
            assertThat(multi.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
            multi.unlock();
            assertThat(scriptCalls(before)).isEqualTo(2);
            assertThat(held(names)).isZero();
        }
    }

    @Test
    void namesSpreadOverTheMastersAreOneCallPerSlotAndAllOrNothing() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            names.add(Clients.uniqueName("spread"));
        }
        long slots = names.stream().mapToInt(SlotHash::getSlot).distinct().count();
        try (LockClient mine = client(); LockClient theirs = client()) {
            RLock multi = multi(mine, names);
            multi.lock(); // loads the scripts on every master
            multi.unlock();
            Map<RedisAdmin, CommandStats> before = stats();
            multi.lock();
            assertThat(held(names)).isEqualTo(names.size());
            assertThat(mine.getLock(names.get(17)).isHeldByCurrentThread()).isTrue();
            multi.unlock();
            assertThat(scriptCalls(before)).as("one call per slot each way").isEqualTo(2 * slots);
            assertThat(held(names)).isZero();

            RLock other = theirs.getLock(names.get(11));
            other.lock(60, TimeUnit.SECONDS);
            assertThat(multi.tryLock()).isFalse();
            assertThat(held(names)).as("only the other client's lock").isOne();
            other.unlock();
            assertThat(multi.tryLock(1, 30, TimeUnit.SECONDS)).isTrue();
            assertThat(held(names)).isEqualTo(names.size());
            multi.unlock();
            assertThat(held(names)).isZero();
        }
    }
}
