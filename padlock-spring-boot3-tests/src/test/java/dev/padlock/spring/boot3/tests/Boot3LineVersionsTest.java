package dev.padlock.spring.boot3.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.padlock.LockClient;
import dev.padlock.RLock;
import dev.padlock.spring.integration6.PadlockLockRegistry6;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import io.lettuce.core.LettuceVersion;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Issue 38: a Spring Boot 3.5 application with nothing but Boot's own dependency management starts
 * with Padlock. This module imports Boot 3.5's BOM with no {@code lettuce.version} or
 * {@code netty.version} of its own choosing, so its tests run on the Lettuce and Netty that BOM
 * manages: checked here against the BOM itself (Surefire passes its path), then an application
 * with the starter, Spring Integration 6.5, ShedLock and Micrometer takes and releases locks.
 * Before, lock-core refused to start on Netty 4.1 and the module overrode both versions.
 */
@RedisTest
class Boot3LineVersionsTest {

    @Test
    void lettuceAndNettyAreTheOnesBoot35Manages() throws IOException {
        Map<String, String> bom = bomProperties();
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        String lettuce = LettuceVersion.getVersion();
        assertThat(lettuce.contains("/") ? lettuce.substring(0, lettuce.indexOf('/')) : lettuce)
                .as("Lettuce on the class path").isEqualTo(bom.get("lettuce.version")).startsWith("6.");
        Map<String, String> netty = io.netty.util.Version.identify().values().stream()
                .collect(Collectors.toMap(io.netty.util.Version::artifactId, io.netty.util.Version::artifactVersion));
        assertThat(netty).as("every Netty artifact on the class path").containsKey("netty-common")
                .allSatisfy((artifact, version) -> assertThat(version).as(artifact)
                        .isEqualTo(bom.get("netty.version")).startsWith("4.1."));
    }

    @Test
    void anApplicationOnBootsOwnVersionsTakesAndReleasesLocks(RedisEndpoint redis, RedisAdmin admin) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Boot3ApplicationTest.Application.class)
                .web(WebApplicationType.NONE)
                .initializers(c -> c.getBeanFactory().registerSingleton("redisAdmin", admin))
                .run("--padlock.uri=" + redis.uri())) {
            assertThat(LockRegistry.class.getPackage().getImplementationVersion()).startsWith("6.5.");
            String id = UUID.randomUUID().toString();

            RLock rlock = context.getBean(LockClient.class).getLock("orders:" + id);
            rlock.lock();
            assertThat(admin.commands().exists("orders:" + id)).isOne();
            rlock.unlock();
            assertThat(admin.commands().exists("orders:" + id)).isZero();

            Lock registryLock = context.getBean(PadlockLockRegistry6.class).obtain(id);
            assertThat(registryLock.tryLock()).isTrue();
            registryLock.unlock();
            assertThat(admin.commands().exists("padlock:" + id)).isZero();

            LockProvider shedLock = context.getBean(LockProvider.class);
            shedLock.lock(new LockConfiguration(Instant.now(), "report-" + id, Duration.ofMinutes(1), Duration.ZERO))
                    .orElseThrow().unlock();
            assertThat(admin.commands().exists("shedlock:report-" + id)).isZero();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("padlock.lock.acquire").tags("kind", "lock", "outcome", "acquired").timer().count())
                    .isEqualTo(2);
        }
    }

    /** The properties of the Boot 3.5 BOM this module imports, from its pom in the local repository. */
    private static Map<String, String> bomProperties() throws IOException {
        String path = System.getProperty("padlock.boot3.bom");
        assertThat(path).as("system property padlock.boot3.bom, set by this module's pom").isNotBlank();
        String pom = Files.readString(Path.of(path));
        Matcher properties = Pattern.compile("<properties>(.*?)</properties>", Pattern.DOTALL).matcher(pom);
        assertThat(properties.find()).as("a <properties> section in %s", path).isTrue();
        Matcher property = Pattern.compile("<([\\w.-]+)>([^<]*)</\\1>").matcher(properties.group(1));
        Map<String, String> values = new java.util.HashMap<>();
        while (property.find()) {
            values.put(property.group(1), property.group(2).trim());
        }
        assertThat(values).containsKeys("lettuce.version", "netty.version");
        return values;
    }
}
