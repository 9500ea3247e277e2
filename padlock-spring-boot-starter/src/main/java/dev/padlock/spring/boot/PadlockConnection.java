package dev.padlock.spring.boot;

import dev.padlock.LockConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where the client connects: {@code padlock.uri}, {@code padlock.cluster.nodes} or
 * {@code padlock.sentinel.*} when given, else Spring Boot's {@code spring.data.redis.*} ({@code url},
 * {@code cluster.nodes}, {@code sentinel.*}, or {@code host}/{@code port}/{@code username}/
 * {@code password}/{@code database}/{@code ssl.enabled}), else {@code redis://localhost:6379}. Read
 * from the {@link Environment}, so Spring Data Redis need not be on the class path. The client's
 * name in the registry is {@code padlock.client-name}, else {@code spring.application.name}.
 */
final class PadlockConnection {
    private static final String SPRING = "spring.data.redis.";

    private PadlockConnection() {
    }

    /** A config builder with the connection and the timeouts of {@code properties}. */
    static LockConfig.Builder configure(PadlockProperties properties, Environment environment) {
        LockConfig.Builder config = LockConfig.builder()
                .watchdogTimeout(properties.getWatchdogTimeout())
                .commandTimeout(properties.getCommandTimeout())
                .startWithoutRedis(properties.isStartWithoutRedis())
                .scripting(properties.getScripting());
        String name = hasText(properties.getClientName()) ? properties.getClientName()
                : environment.getProperty("spring.application.name");
        if (hasText(name)) {
            config.applicationName(name);
        }
        PadlockProperties.ReplicaAcknowledgement acknowledgement = properties.getReplicaAcknowledgement();
        if (acknowledgement.getReplicas() > 0) {
            config.replicaAcknowledgement(acknowledgement.getReplicas(), acknowledgement.getTimeout());
        }
        if (hasText(properties.getUri())) {
            return config.redisUri(properties.getUri());
        }
        if (!properties.getCluster().getNodes().isEmpty()) {
            return config.clusterUris(seeds(properties.getCluster().getNodes(), null, false));
        }
        PadlockProperties.Sentinel sentinel = properties.getSentinel();
        if (hasText(sentinel.getMaster())) {
            return config.redisUri(sentinelUri(sentinel.getMaster(), sentinel.getNodes(), sentinel.getPassword(), 0));
        }
        return springDataRedis(config, environment);
    }

    private static LockConfig.Builder springDataRedis(LockConfig.Builder config, Environment environment) {
        Binder binder = Binder.get(environment);
        String url = environment.getProperty(SPRING + "url");
        String username = environment.getProperty(SPRING + "username");
        String password = environment.getProperty(SPRING + "password");
        boolean ssl = environment.getProperty(SPRING + "ssl.enabled", Boolean.class, false);
        int database = environment.getProperty(SPRING + "database", Integer.class, 0);
        if (hasText(url)) {
            return config.redisUri(url);
        }
        List<String> clusterNodes = binder.bind(SPRING + "cluster.nodes", Bindable.listOf(String.class)).orElse(List.of());
        if (!clusterNodes.isEmpty()) {
            return config.clusterUris(seeds(clusterNodes, userInfo(username, password), ssl));
        }
        String master = environment.getProperty(SPRING + "sentinel.master");
        if (hasText(master)) {
            List<String> nodes = binder.bind(SPRING + "sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of());
            return config.redisUri(sentinelUri(master, nodes, password, database));
        }
        String host = environment.getProperty(SPRING + "host", "localhost");
        int port = environment.getProperty(SPRING + "port", Integer.class, 6379);
        Duration timeout = binder.bind(SPRING + "timeout", Duration.class).orElse(null);
        if (timeout != null && !timeout.isZero() && !environment.containsProperty("padlock.command-timeout")) {
            config.commandTimeout(timeout);
        }
        String info = userInfo(username, password);
        return config.redisUri((ssl ? "rediss://" : "redis://") + (info == null ? "" : info + "@") + host + ":" + port
                + (database == 0 ? "" : "/" + database));
    }

    private static String[] seeds(List<String> nodes, String userInfo, boolean ssl) {
        return nodes.stream().map(String::trim).map(node -> node.contains("://") ? node
                : (ssl ? "rediss://" : "redis://") + (userInfo == null ? "" : userInfo + "@") + node)
                .toArray(String[]::new);
    }

    private static String sentinelUri(String master, List<String> nodes, String password, int database) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Sentinel master '" + master + "' needs its Sentinel nodes");
        }
        return "redis-sentinel://" + (hasText(password) ? encode(password) + "@" : "")
                + String.join(",", nodes.stream().map(String::trim).toList())
                + (database == 0 ? "" : "/" + database) + "#" + master;
    }

    private static String userInfo(String username, String password) {
        if (!hasText(password)) {
            return null;
        }
        return hasText(username) ? encode(username) + ":" + encode(password) : encode(password);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static boolean hasText(String text) {
        return text != null && !text.isBlank();
    }
}
