package dev.padlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 38: a URI that is not a Redis URI is bad usage, exit 2 with the reason on stderr, as the
 * CLI page says; it used to exit 1, as if Redis could not be reached. No Redis is needed: the URI
 * is rejected before any connection.
 */
class PadlockCommandBadUriTest {
    /** Never used: every run below gives its own URI. */
    private final Cli cli = new Cli("redis://127.0.0.1:1");

    @Test
    void aUriWithAnotherSchemeThanRedisIsBadUsageAndExitsTwo() {
        for (List<String> command : List.of(List.of("show", "x"), List.of("ls"), List.of("clients"),
                List.of("watch", "x", "--count", "1"), List.of("force-unlock", "--yes", "x"))) {
            List<String> args = new ArrayList<>(List.of("--uri", "http://127.0.0.1:1"));
            args.addAll(command);
            Cli.Result result = cli.run(args.toArray(String[]::new));
            assertThat(result.status()).as("%s: %s", command, result.err()).isEqualTo(2);
            assertThat(result.err().lines().findFirst()).as("%s", command).hasValueSatisfying(first -> assertThat(first)
                    .startsWith("padlock: not a Redis URI: http://127.0.0.1:1").contains("expected redis://"));
            assertThat(result.out()).as("%s", command).isEmpty();
        }
    }

    @Test
    void aClusterSeedWithAnotherSchemeThanRedisIsBadUsageAndExitsTwo() {
        Cli.Result result = cli.run("--cluster", "redis://127.0.0.1:1,http://127.0.0.1:2", "ls");
        assertThat(result.status()).as(result.err()).isEqualTo(2);
        assertThat(result.err()).startsWith("padlock: not a Redis URI: http://127.0.0.1:2");
    }

    @Test
    void aBadUriMessageHidesThePassword() {
        Cli.Result result = cli.run("--uri", "https://ops:s3cret@redis.example.com:6380", "show", "x");
        assertThat(result.status()).isEqualTo(2);
        assertThat(result.err()).contains("not a Redis URI: https://***@redis.example.com:6380").doesNotContain("s3cret");
    }
}
