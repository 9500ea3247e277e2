package dev.padlock.demo;

import dev.padlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A worker JVM of the demo: connects, says {@code READY}, waits for {@code GO} on stdin, runs
 * its {@link CounterLoop}s until the deadline while reporting counts, then reports its totals
 * (see {@link WorkerMessage}) and exits: 0 when every thread finished cleanly, 1 otherwise.
 *
 * <p>Arguments: {@code <kind> <redisUri>[,<redisUri>...] <threads> <seconds> <leaseMillis> <index>}: one
 * {@link LockClient} per URI (three for the red lock, one otherwise); the counter lives on the
 * first server. {@code index} is the worker's number, which picks each thread's order of the
 * multi lock's names.
 */
public final class Worker {

    private static final int LATENCIES_PER_LINE = 500;
    private static final long REPORT_EVERY_MILLIS = 200;

    private final PrintStream protocol;

    private Worker(PrintStream protocol) {
        this.protocol = protocol;
    }

    public static void main(String[] args) {
        // Only protocol lines may reach stdout; anything else printed goes to stderr.
        PrintStream protocol = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Worker worker = new Worker(protocol);
        int status;
        try {
            status = worker.run(DemoKind.parse(args[0]), List.of(args[1].split(",")), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]));
        } catch (Exception e) {
            e.printStackTrace(System.err);
            worker.send(WorkerMessage.failed(e.toString()));
            status = 1;
        }
        System.exit(status);
    }

    private int run(DemoKind kind, List<String> redisUris, int threads, int seconds, long leaseMillis, int index)
            throws Exception {
        List<LockClient> clients = new ArrayList<>();
        RedisClient bookkeepingClient = RedisClient.create(redisUris.get(0));
        try (StatefulRedisConnection<String, String> bookkeeping = bookkeepingClient.connect()) {
            for (String uri : redisUris) {
                clients.add(LockClient.connect(uri));
            }
            List<DemoLock> locks = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                locks.add(DemoLock.create(kind, clients, index * threads + i));
            }
            send(WorkerMessage.ready());
            awaitGo();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<CounterLoop> loops = new ArrayList<>();
            List<Thread> running = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                CounterLoop loop = new CounterLoop(locks.get(i), bookkeeping.sync(), leaseMillis, deadline);
                Thread thread = new Thread(loop, "demo-worker-" + i);
                loops.add(loop);
                running.add(thread);
                thread.start();
            }
            reportUntilDone(loops, running);
            return report(loops);
        } finally {
            clients.forEach(LockClient::close);
            bookkeepingClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void awaitGo() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line = in.readLine();
        if (!WorkerMessage.GO.equals(line)) {
            throw new IllegalStateException("Expected " + WorkerMessage.GO + " from the parent, got " + line);
        }
    }

    private void reportUntilDone(List<CounterLoop> loops, List<Thread> running) throws InterruptedException {
        for (Thread thread : running) {
            while (thread.isAlive()) {
                thread.join(REPORT_EVERY_MILLIS);
                send(WorkerMessage.count(total(loops)));
            }
        }
    }

    private int report(List<CounterLoop> loops) {
        int status = 0;
        for (CounterLoop loop : loops) {
            long[] latencies = loop.latencies();
            for (int from = 0; from < latencies.length; from += LATENCIES_PER_LINE) {
                send(WorkerMessage.latency(latencies, from, Math.min(latencies.length, from + LATENCIES_PER_LINE)));
            }
            if (loop.failure() != null) {
                loop.failure().printStackTrace(System.err);
                send(WorkerMessage.failed(loop.failure().toString()));
                status = 1;
            }
        }
        send(WorkerMessage.done(WorkerTotals.of(loops)));
        return status;
    }

    private static long total(List<CounterLoop> loops) {
        return loops.stream().mapToLong(CounterLoop::acquisitions).sum();
    }

    private synchronized void send(String line) {
        protocol.println(line);
    }
}
