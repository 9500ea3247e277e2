package dev.padlock.cli;

import dev.padlock.LockConfig;
import dev.padlock.spi.RedisAccess;
import dev.padlock.spi.RedisConnection;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The command's way to Redis: Padlock's own connections ({@link RedisAccess#open}, so the URI forms, TLS, Sentinel
 * and Cluster are LockConfig's), with blocking helpers bounded by the command timeout.
 */
final class Connection implements AutoCloseable {
    /** The most SCAN calls one listing makes: a bound, never reached on a sane keyspace. */
    static final int MAX_SCAN_CALLS = 100_000;

    private final LockConfig config;
    private final RedisConnection backend;
    private final long timeoutMillis;

    private Connection(LockConfig config, RedisConnection backend) {
        this.config = config;
        this.backend = backend;
        this.timeoutMillis = config.commandTimeout().toMillis();
    }

    /**
     * Connects as {@code config} says.
     *
     * @throws dev.padlock.RedisUnavailableException when Redis cannot be reached
     */
    static Connection open(LockConfig config) {
        return new Connection(config, RedisAccess.open(config));
    }

    LockConfig config() {
        return config;
    }

    String address() {
        return backend.address();
    }

    RedisClusterAsyncCommands<String, String> commands() {
        return backend.commands();
    }

    /** The reply of {@code call}, waited for at most the command timeout. */
    <T> T await(CompletionStage<T> call, String operation) {
        try {
            return call.toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(operation + " interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw backend.translate(e instanceof ExecutionException ? e.getCause() : e, operation);
        }
    }

    /** Redis time, epoch milliseconds: what "since" was written with. */
    long nowMillis() {
        List<String> time = await(commands().time(), "TIME");
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /**
     * The keys matching {@code pattern} of Redis type {@code type} (null: any), by SCAN (never
     * KEYS), across every master on a Cluster; at most {@code limit}.
     */
    List<String> scan(String pattern, String type, int limit) {
        KeyScanArgs args = KeyScanArgs.Builder.matches(pattern).limit(1000);
        if (type != null) {
            args.type(type);
        }
        Set<String> keys = new LinkedHashSet<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        for (int calls = 0; calls < MAX_SCAN_CALLS && keys.size() < limit; calls++) {
            KeyScanCursor<String> page = await(commands().scan(cursor, args), "SCAN MATCH " + pattern);
            for (String key : page.getKeys()) {
                if (keys.size() < limit) {
                    keys.add(key);
                }
            }
            if (page.isFinished()) {
                break;
            }
            cursor = page;
        }
        return new ArrayList<>(keys);
    }

    /**
     * How many subscriptions listen on each of {@code channels} (all in the slot of
     * {@code key}): {@code PUBSUB NUMSUB}, summed over every node on a Cluster, plus
     * {@code PUBSUB SHARDNUMSUB} on the slot's master where pub/sub is sharded (Redis 7 Cluster).
     */
    long listeners(String key, List<String> channels) {
        if (channels.isEmpty()) {
            return 0;
        }
        String[] names = channels.toArray(String[]::new);
        long total = 0;
        if (backend.isCluster()) {
            var all = ((RedisAdvancedClusterAsyncCommands<String, String>) commands()).all().commands()
                    .pubsubNumsub(names);
            for (CompletionStage<Map<String, Long>> node : all.futures()) {
                total += sum(await(node, "PUBSUB NUMSUB"));
            }
            if (backend.isSharded()) {
                var master = await(backend.commandsFor(key), "the master of '" + key + "'");
                total += sum(await(master.pubsubShardNumsub(names), "PUBSUB SHARDNUMSUB"));
            }
        } else {
            total += sum(await(commands().pubsubNumsub(names), "PUBSUB NUMSUB"));
        }
        return total;
    }

    /**
     * The channels matching {@code pattern} (all in the slot of {@code key}) that have at least one
     * subscriber: {@code PUBSUB CHANNELS} on every node on a Cluster, plus
     * {@code PUBSUB SHARDCHANNELS} on the slot's master where pub/sub is sharded.
     */
    Set<String> channels(String key, String pattern) {
        Set<String> names = new TreeSet<>();
        if (backend.isCluster()) {
            var all = ((RedisAdvancedClusterAsyncCommands<String, String>) commands()).all().commands()
                    .pubsubChannels(pattern);
            for (CompletionStage<List<String>> node : all.futures()) {
                names.addAll(await(node, "PUBSUB CHANNELS"));
            }
            if (backend.isSharded()) {
                var master = await(backend.commandsFor(key), "the master of '" + key + "'");
                names.addAll(await(master.pubsubShardChannels(pattern), "PUBSUB SHARDCHANNELS"));
            }
        } else {
            names.addAll(await(commands().pubsubChannels(pattern), "PUBSUB CHANNELS"));
        }
        return names;
    }

    /** {@code text} as a glob matching itself alone: {@code *}, {@code ?}, {@code [}, {@code ]} and backslash escaped. */
    static String globEscaped(String text) {
        StringBuilder glob = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                glob.append('\\');
            }
            glob.append(c);
        }
        return glob.toString();
    }

    /**
     * The first {@code length} characters of each string key of {@code keys} ({@code GETRANGE},
     * sent together, so one round trip's wait for the lot); a key gone meanwhile reads as empty.
     */
    Map<String, String> heads(List<String> keys, int length) {
        Map<String, CompletionStage<String>> calls = new LinkedHashMap<>();
        for (String key : keys) {
            calls.put(key, commands().getrange(key, 0, length - 1));
        }
        Map<String, String> heads = new LinkedHashMap<>();
        calls.forEach((key, call) -> heads.put(key, await(call, "GETRANGE " + key)));
        return heads;
    }

    private static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void close() {
        backend.close();
    }
}
