package dev.padlock.testing;

import java.util.ArrayList;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Testcontainers {@code redis:7}, the last resort. Kept in its own class so that Testcontainers
 * is loaded only when the other sources failed.
 */
final class ContainerRedis {

    static final String IMAGE = "redis:7";
    private static final int REDIS_PORT = 6379;

    private ContainerRedis() {
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Starts a container; closing the returned endpoint stops it. */
    static RedisEndpoint start(List<String> extraArgs) {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withExposedPorts(REDIS_PORT);
        if (!extraArgs.isEmpty()) {
            List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no"));
            command.addAll(extraArgs);
            container.withCommand(command.toArray(String[]::new));
        }
        container.start();
        String uri = "redis://" + container.getHost() + ":" + container.getMappedPort(REDIS_PORT);
        return RedisEndpoint.container(uri, container::stop);
    }
}
