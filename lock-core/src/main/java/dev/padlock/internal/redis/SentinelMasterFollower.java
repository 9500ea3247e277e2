package dev.padlock.internal.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Keeps the connections of a client of a Sentinel-managed master on the current master.
 *
 * <p>Implementation notes. Lettuce asks one Sentinel for the master only when a connection
 * (re)connects, and nothing makes it reconnect after a graceful {@code SENTINEL FAILOVER}: the
 * old master stays up, still a master, until the Sentinels turn it into a replica 8 to 10 s
 * later, and whatever is written to it meanwhile is lost when it resyncs. So:
 * <ul>
 * <li>{@link #client()} resolves the master by asking every Sentinel at once
 *   ({@code SENTINEL MASTER}) and taking the answer with the highest {@code config-epoch}: a
 *   Sentinel that has not heard of a switch yet is outvoted by the one that made it;
 * <li>a pub/sub connection to each Sentinel listens to {@code +switch-master}; when it names
 *   this master and an address other than the one last resolved, the {@code onSwitch} callback
 *   drops the data connections, which Lettuce reconnects through that resolution;
 * <li>while no Sentinel subscription is up, the Sentinels are asked every second instead;
 * <li>{@link #readOnlyReply()} (a write answered {@code READONLY}) asks them at once and moves.
 * </ul>
 * Lettuce's reconnect delay is capped at 500 ms, so that a reconnect still pending after a dead
 * master's outage is never seconds away when the switch is announced.
 *
 * <p>Thread-safe. {@code current} and {@code target} are written on Lettuce I/O threads and read
 * anywhere; a rare duplicate move (two events racing) only costs one more reconnect.
 */
final class SentinelMasterFollower implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SentinelMasterFollower.class);
    private static final String SWITCH_CHANNEL = "+switch-master";
    private static final Duration POLL = Duration.ofSeconds(1);

    private final RedisURI uri;
    private final String masterName;
    private final ClientResources resources;
    private final Client client;
    private final List<StatefulRedisPubSubConnection<String, String>> watches = new ArrayList<>(); // guarded by itself
    private final AtomicBoolean asking = new AtomicBoolean();
    /** The master ({@code ip:port}) the data connections last resolved. */
    private volatile @Nullable String current;
    /** The master a move is under way to, until the next resolution; null when none. */
    private volatile @Nullable String target;
    private volatile Runnable onSwitch = () -> { };
    private volatile @Nullable ScheduledFuture<?> poll;

    /** {@code uri} is a {@code redis-sentinel://} URI; {@code timeout} bounds each Sentinel query. */
    SentinelMasterFollower(RedisURI uri, Duration timeout, ClientOptions options) {
        this.uri = uri;
        this.masterName = uri.getSentinelMasterId();
        for (RedisURI sentinel : uri.getSentinels()) {
            sentinel.setTimeout(timeout);
        }
        this.resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(1), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS))
                .build();
        this.client = new Client();
        client.setOptions(options);
    }

    /** The client whose connections to {@code uri} go to the master the Sentinels name. */
    RedisClient client() {
        return client;
    }

    /**
     * Starts listening to the Sentinels; {@code onSwitch} runs, on a Lettuce I/O thread, each time
     * the connections must move to another master.
     */
    void start(Runnable onSwitch) {
        this.onSwitch = onSwitch;
        for (RedisURI sentinel : uri.getSentinels()) {
            client.connectPubSubAsync(StringCodec.UTF8, sentinel).thenCompose(watch -> {
                watch.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        switchAnnounced(message);
                    }
                });
                synchronized (watches) {
                    watches.add(watch);
                }
                return watch.async().subscribe(SWITCH_CHANNEL);
            }).whenComplete((ok, failure) -> {
                if (failure != null) {
                    log.warn("Cannot watch Sentinel {} for master switches ({}); polling the Sentinels while none is"
                            + " watched", sentinel, failure.toString());
                }
            });
        }
        poll = resources.eventExecutorGroup().scheduleWithFixedDelay(this::pollIfUnwatched,
                POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A write was answered {@code READONLY}: the node is a replica now; ask the Sentinels and move. */
    void readOnlyReply() {
        askSentinels(true);
    }

    /** {@code <master name> <old ip> <old port> <new ip> <new port>}, from any Sentinel. */
    private void switchAnnounced(String message) {
        String[] parts = message.split(" ");
        if (parts.length != 5 || !parts[0].equals(masterName)) {
            return;
        }
        String address = parts[3] + ":" + parts[4];
        if (address.equals(current) || address.equals(target)) {
            return; // already there, or on the way: another Sentinel announcing the same switch
        }
        log.info("Sentinel master '{}' switched from {} to {}: moving the connections", masterName, current, address);
        move(address);
    }

    private void move(String address) {
        target = address;
        onSwitch.run();
    }

    private void pollIfUnwatched() {
        synchronized (watches) {
            if (watches.stream().anyMatch(StatefulRedisPubSubConnection::isOpen)) {
                return;
            }
        }
        askSentinels(false);
    }

    /** Moves when the Sentinels name another master than {@code current}, or always if {@code force}. */
    private void askSentinels(boolean force) {
        if (!asking.compareAndSet(false, true)) {
            return; // one query at a time
        }
        queryMaster().whenComplete((master, failure) -> {
            asking.set(false);
            if (failure != null) {
                log.debug("Cannot ask the Sentinels for master '{}': {}", masterName, failure.toString());
            } else if (force || !master.equals(current)) {
                log.info("Sentinels name {} as master '{}' (connections on {}): moving the connections", master,
                        masterName, current);
                move(master);
            }
        });
    }

    /**
     * Asks every Sentinel for the master at once; the {@code ip:port} with the highest
     * {@code config-epoch} among those that answer.
     */
    private CompletableFuture<String> queryMaster() {
        List<CompletableFuture<Map<String, String>>> answers = new ArrayList<>();
        for (RedisURI sentinel : uri.getSentinels()) {
            answers.add(client.connectSentinelAsync(StringCodec.UTF8, sentinel)
                    .thenCompose(c -> c.async().master(masterName).toCompletableFuture()
                            .whenComplete((state, failure) -> c.closeAsync()))
                    .exceptionally(failure -> null));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(done -> {
            String best = null;
            long bestEpoch = -1;
            for (CompletableFuture<Map<String, String>> answer : answers) {
                Map<String, String> state = answer.join();
                if (state == null || state.get("ip") == null || state.get("port") == null) {
                    continue;
                }
                long epoch = parseEpoch(state.get("config-epoch"));
                if (epoch > bestEpoch) {
                    bestEpoch = epoch;
                    best = state.get("ip") + ":" + state.get("port");
                }
            }
            if (best == null) {
                throw new RedisConnectionException("No Sentinel of " + uri.getSentinels()
                        + " names a master for '" + masterName + "'");
            }
            return best;
        });
    }

    private static long parseEpoch(@Nullable String epoch) {
        try {
            return epoch == null ? 0 : Long.parseLong(epoch);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Shuts the client (every connection it made, the Sentinel watches included) and its resources. */
    @Override
    public void close() {
        ScheduledFuture<?> task = poll;
        if (task != null) {
            task.cancel(false);
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        // the client does not shut resources it was given; wait for their threads as it would
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    /** A {@link RedisClient} whose connections to {@code uri} resolve the master through {@link #queryMaster()}. */
    private final class Client extends RedisClient {
        Client() {
            super(resources, uri);
        }

        @Override
        protected Mono<SocketAddress> getSocketAddress(RedisURI redisUri) {
            if (redisUri != uri) {
                return super.getSocketAddress(redisUri); // a Sentinel itself
            }
            return Mono.defer(() -> Mono.fromCompletionStage(queryMaster())).map(master -> {
                current = master;
                target = null;
                int colon = master.lastIndexOf(':');
                return getResources().socketAddressResolver()
                        .resolve(RedisURI.create(master.substring(0, colon), Integer.parseInt(master.substring(colon + 1))));
            });
        }
    }
}
