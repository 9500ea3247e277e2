package dev.padlock.bench;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The text of {@code bench.md}: the run's header, the table, what each metric means, and the
 * Redis calls of each run broken down by command (the floor's too, in its rows). On a cluster the
 * title names the topology and more notes say how the figures of the masters add up.
 */
final class Markdown {

    /** What differs on a cluster: notes that follow the first one. */
    private static final String CLUSTER_NOTES = String.join("\n",
            "- Topology: a Redis Cluster of " + Topology.CLUSTER_MASTERS + " masters without replicas, the slots split"
                    + " evenly, started by the",
            "  runner. Both libraries use their Cluster client with default settings (Padlock:",
            "  `LockConfig.builder().clusterUris(seeds)`; Redisson: `useClusterServers().addNodeAddress(seeds)`).",
            "- Every figure from the servers is taken on each master and summed: `INFO commandstats` and",
            "  `INFO cpu` (which includes each node's cluster bus and cron), one `MONITOR` per master for the",
            "  round trips, `KEYS` on each master for the keys left. Redis calls include the clients' topology",
            "  queries (`cluster|slots`, `cluster|nodes`, ...).",
            "- *PUBLISH / SPUBLISH* and *SUBSCRIBE / SSUBSCRIBE* (contended scenarios): the calls of the classic",
            "  and of the sharded command per acquisition (`INFO commandstats`, so a publish inside a script counts).",
            "- Lock names: the 16 locks of scenario 5 and the components of the multi and red locks (7g, 7h) are",
            "  named so that they spread evenly over the masters; a single lock lives on whichever master its",
            "  name hashes to. The multi locks of 12a and 12b too: names without a hash tag, so each in a slot",
            "  of its own (a script over keys of different slots is refused, `CROSSSLOT`); 12c's 100 names share",
            "  one hash tag per master (`bench:{<run>-m<master>}:<i>`, the tag's slot on that master), so each",
            "  master's components are in one slot. *Round trips / acquisition / master*: the round trips",
            "  divided by " + Topology.CLUSTER_MASTERS + ".");

    private Markdown() {
    }

    /** The text for a run on one server. */
    static String of(String header, ResultTable table, Map<Scenario, Map<String, ScenarioResult>> results) {
        return of(header, table, results, Topology.SINGLE);
    }

    /** The text for a run on {@code topology} in which nothing failed. */
    static String of(String header, ResultTable table, Map<Scenario, Map<String, ScenarioResult>> results,
            Topology topology) {
        return of(header, table, results, topology, List.of());
    }

    /**
     * The text for a run on {@code topology}; {@code failures} are the rounds that failed, one
     * line each, listed in a section of their own.
     */
    static String of(String header, ResultTable table, Map<Scenario, Map<String, ScenarioResult>> results,
            Topology topology, List<String> failures) {
        StringBuilder text = new StringBuilder();
        text.append(topology == Topology.CLUSTER
                ? "# Padlock vs Redisson on a Redis Cluster\n\n" : "# Padlock vs Redisson\n\n");
        for (String line : header.strip().split("\n")) {
            text.append(line).append("  \n");
        }
        text.append('\n').append(table.toMarkdown()).append('\n');
        String floorRows = Bench.scenarios(topology).stream().filter(Scenario::withFloor).map(Scenario::id)
                .collect(Collectors.joining(", "));
        text.append(String.join("\n",
                "- Ratios are Padlock / Redisson (and Padlock / floor) whatever the metric: above 1 is better for",
                "  acquisitions/s, below 1 is better for calls, round trips, CPU, latency and allocation."
                        + (topology == Topology.CLUSTER ? "\n" + CLUSTER_NOTES : ""),
                "- *floor* (" + floorRows + "): the least a lock in Redisson's format costs, two bare Lua scripts run"
                        + " with",
                "  `EVALSHA` over one Lettuce connection: `EXISTS`, `HINCRBY`, `PEXPIRE` to take the lock, `HINCRBY`,",
                "  `DEL`, `PUBLISH` to release it (8 Redis calls and 2 round trips a pair); no watchdog (a 30 s lease",
                "  where one would renew), no waiting, no subscription.",
                "- *Acquisitions/s*: what the threads acquired from the start of the measured window to the moment",
                "  the runner asks them to pause, read while they run; the figures per acquisition divide by the",
                "  exact count once all have paused (a pause waits for the acquisitions under way).",
                "- *Redis calls*: the delta of all `INFO commandstats` calls over the measured window (the",
                "  runner's own `INFO` excluded), which counts the `redis.call`s inside scripts too.",
                "- *Round trips*: top-level client commands, counted with `MONITOR` in a separate 1 s pass",
                "  (lines from scripts, `[0 lua]`, left out); `INFO stats total_commands_processed` cannot be",
                "  used since Redis 7.0 counts script-internal calls there too. Pipelined commands count one each.",
                "- *(UN)SUBSCRIBE*: SUBSCRIBE, UNSUBSCRIBE and their sharded and pattern forms.",
                "- *Redis CPU*: the delta of `used_cpu_sys` + `used_cpu_user`.",
                "- *Keys left*: keys of the run other than the locks themselves, right after it (Redisson's",
                "  unlock writes `redisson_unlock_latch` keys).",
                "- Wake-up latency (6a, 6b): from just before the holder's `unlock()` to the waiter's return from",
                "  `tryLock(10 s, 30 s)`; " + WakeUpLatencyScenario.Place.OTHER_CLIENT.samples() + " samples after "
                        + WakeUpLatencyScenario.Place.OTHER_CLIENT.warmUpSamples()
                        + " of warm-up, alternating between the libraries sample"
                        + " by sample so that both see the same machine (cost and round trips are then measured for each"
                        + " alone). In 6a the waiter uses a second client",
                "  and is woken through pub/sub, as a waiter in another JVM is. Acquisitions there count both the",
                "  holder's and the waiter's.",
                "  Redis CPU there includes the server's idle housekeeping while the waiter is parked.",
                "- Wake-up latency across JVMs (6c): as 6a, but the waiter is a worker JVM blocked in `lock(30 s)`",
                "  (the holder in the bench JVM); " + WakeUpLatencyScenario.Place.OTHER_JVM.samples() + " samples after "
                        + WakeUpLatencyScenario.Place.OTHER_JVM.warmUpSamples() + " of warm-up. The worker reports its",
                "  `System.nanoTime()` at the return and the bench JVM subtracts its own from just before `unlock()`:",
                "  on Linux both read `CLOCK_MONOTONIC`, one clock for every process of the machine (a sample the",
                "  other way round would fail the run). The worker learns of each sample and reports back over its",
                "  stdin and stdout, outside the timed span.",
                "- Bytes allocated: JMH `gc.alloc.rate.norm` of one uncontended `lock(30 s)` + `unlock()`.",
                "- Lock family (7a-7i): `lock(30 s)` + `unlock()` on each kind of lock, the same call in both",
                "  libraries, by one thread on a lock no one else wants (7i: 4 threads of one client on one fair",
                "  lock). The fenced lock is taken with `lockAndGetToken(30 s)` in both. Multi and red locks are made",
                topology == Topology.CLUSTER
                        ? "  of " + LockKind.COMPOSITE_SIZE + " plain locks, one on each master, from one client: the red"
                                + " lock's row shows what\n  the algorithm costs, not what independent deployments with a"
                                + " client each would. Only acquisitions/s,"
                        : "  of " + LockKind.COMPOSITE_SIZE + " plain locks; the red lock's are on the bench's one server,"
                                + " so\n  its row shows what the algorithm costs, not what independent servers would."
                                + " Only acquisitions/s,",
                "  calls and round trips are shown for them, and the chart leaves them out.",
                "- Worker JVMs (4, 8a-8d, 9a-9c, 10a-10b): each JVM has its own client and "
                        + MultiProcessScenario.THREADS + " threads doing `lock(30 s)` +",
                "  `unlock()` on one lock with nothing in between: a plain lock (4: 2 JVMs; 8a-8d: 1, 2, 4, 8), a fair",
                "  lock (9a-9c: 1, 2, 4), a read-write lock (10a, 10b: 2, 4) of which each acquisition takes the read",
                "  lock with probability " + MultiProcessScenario.READ_PERCENT / 100.0 + ", else the write lock (a"
                        + " `Random` per thread, seeded the same in every run).",
                "  8a-10b show only the headline rows and the chart leaves them out; 8b is scenario 4's set-up again.",
                "- Semaphore (11a): each of 4 worker JVMs has its own client and " + MultiProcessScenario.THREADS
                        + " threads doing `acquire()` +",
                "  `release()` of one permit of one `RSemaphore` with nothing in between; "
                        + SemaphoreScenario.PERMITS + " permits, set with",
                "  `trySetPermits(" + SemaphoreScenario.PERMITS + ")` by a client of the library before the run."
                        + " *Free permits on Redis after the run*: the count",
                "  read with `GET` once every worker has stopped; the round fails unless it is "
                        + SemaphoreScenario.PERMITS + " (a permit lost, or",
                "  one made). The chart leaves it out.",
                "- Multi lock (12a, 12b): one thread does `lock()` + `unlock()` of a multi lock of "
                        + MultiLockScenario.HUNDRED + " (12a) and of",
                "  " + String.format(Locale.ROOT, "%,d", MultiLockScenario.THOUSAND) + " (12b) plain locks of one"
                        + " client (`getMultiLock` over `getLock`, in both libraries), no one",
                "  else wanting them, the same names every iteration (all released before the next one, so no",
                "  re-entry). An acquisition is one of the multi lock: every figure per acquisition is per",
                "  lock-and-unlock of the whole multi lock. After the run no lock key may be on Redis, else the",
                "  round fails. Only the headline rows; the chart leaves them out.",
                "- *Failed attempts* (4, 8a-11a): runs of the acquire script that returned without the lock, per",
                "  acquisition; a Padlock thread that waits for its own client to hand the lock over makes none.",
                "  Redis counts calls by command only, so this rests on what the scripts call (fixed lease, no",
                "  re-entry). Plain lock (4, 8a-8d): the `pttl` calls of the measured window, for both: the acquire",
                "  scripts end a failed attempt with `pttl` of the lock and call it nowhere else, nor do the releases.",
                "  Fair lock (9a-9c): Padlock's `hexists` calls (`fair_acquire` calls it exactly when it finds the",
                "  lock held, and no release does); Redisson's fair-lock script does not call `pttl` when a waiter joins the queue behind",
                "  another, so for Redisson its `hexists` calls less one per release (the acquire script calls",
                "  `hexists` once unless it takes the free lock, the release once). Read-write lock (10a, 10b): `pttl`",
                "  is called on success too (Padlock's read acquire always, Redisson's when readers hold already) and",
                "  by a read release for each reader still holding, so the scripts whose last call is `pttl` of the",
                "  lock (or, for a Padlock reader that yields to a waiting writer, of its gate",
                "  `padlock_rw_gate:{name}`) are counted in the 1 s `MONITOR` pass instead, per acquisition of that pass.",
                "  Semaphore (11a): the `get` calls of the measured window less its `decrby` calls, for both: the",
                "  acquire scripts call `get` once and `decrby` only when they take a permit, and nothing else does.",
                "- *Fewest / most per process*: the measured window's acquisitions summed per worker JVM (from the",
                "  workers' own counts), with 2 JVMs or more.",
                "",
                "![acquisitions/s](" + topology.chartFileName() + ")",
                "",
                "## Redis calls per acquisition, by command",
                "",
                ""));
        results.forEach((scenario, byLibrary) -> byLibrary.forEach((library, result) ->
                text.append("- ").append(scenario.id()).append(' ').append(library).append(": ")
                        .append(result.failed() ? ResultTable.FAILED : breakdown(result.cost())).append('\n')));
        if (!failures.isEmpty()) {
            text.append("\n## Failed rounds\n\n");
            text.append("A row shows the median of its library's measured rounds, or `failed` when none was.\n\n");
            failures.forEach(failure -> text.append("- ").append(failure).append('\n'));
        }
        return text.toString();
    }

    private static String breakdown(ServerCost cost) {
        return cost.commands().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .map(entry -> String.format(Locale.ROOT, "%s %.2f", entry.getKey(),
                        (double) entry.getValue() / cost.acquisitions()))
                .collect(Collectors.joining(", "));
    }
}
