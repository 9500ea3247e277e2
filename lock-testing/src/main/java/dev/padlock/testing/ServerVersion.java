package dev.padlock.testing;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server binary is, from its {@code --version} line: Redis ({@code Redis server v=7.0.15
 * ...}) or Valkey ({@code Valkey server v=8.0.1 ...}), and its own version.
 *
 * <p>Valkey reports {@code redis_version:7.2.4} in {@code INFO} (and its own in
 * {@code valkey_version}) and offers the commands of Redis 7.2: {@link #redisMajor()} is the
 * Redis version whose features a test may expect, 7 for every Valkey release so far, so that a
 * check for a Redis 8 feature does not take Valkey 8 for Redis 8.
 *
 * @param product Redis or Valkey
 * @param version the server's own version, e.g. {@code 7.0.15} or {@code 8.0.1}
 */
public record ServerVersion(Product product, String version) {

    /** The server a binary is. */
    public enum Product {
        /** Redis: {@code redis-server}. */
        REDIS("Redis", "redis-server"),
        /** Valkey, the Linux Foundation's fork of Redis 7.2: {@code valkey-server}. */
        VALKEY("Valkey", "valkey-server");

        private final String displayName;
        private final String command;

        Product(String displayName, String command) {
            this.displayName = displayName;
            this.command = command;
        }

        /** The name a person reads, e.g. {@code Valkey}. */
        public String displayName() {
            return displayName;
        }

        /** The usual name of its server executable, e.g. {@code valkey-server}. */
        public String command() {
            return command;
        }
    }

    /** The Redis version whose commands every Valkey release so far offers (redis_version 7.2.4). */
    static final int VALKEY_REDIS_MAJOR = 7;

    private static final Pattern LINE = Pattern.compile("(?i)\\b(Redis|Valkey) server v=(\\S+)");
    private static final Pattern ANY = Pattern.compile("v=(\\S+)");

    /** Checks the components. */
    public ServerVersion {
        Objects.requireNonNull(product, "product");
        Objects.requireNonNull(version, "version");
        if (version.isBlank()) {
            throw new IllegalArgumentException("version is blank");
        }
    }

    /**
     * Reads the output of {@code <server> --version}: the product from its first word (Redis when
     * the line names neither, as old builds print only {@code v=...}), the version from
     * {@code v=}.
     *
     * @throws IllegalArgumentException when the output has no {@code v=}
     */
    public static ServerVersion parse(String versionOutput) {
        Objects.requireNonNull(versionOutput, "versionOutput");
        Matcher named = LINE.matcher(versionOutput);
        if (named.find()) {
            Product product = named.group(1).equalsIgnoreCase("valkey") ? Product.VALKEY : Product.REDIS;
            return new ServerVersion(product, named.group(2));
        }
        Matcher any = ANY.matcher(versionOutput);
        if (any.find()) {
            return new ServerVersion(Product.REDIS, any.group(1));
        }
        throw new IllegalArgumentException("No version (v=...) in: " + versionOutput.trim());
    }

    /**
     * The server's own major version, e.g. {@code 8} for Valkey 8.0.1.
     *
     * @throws IllegalStateException when the version does not start with a number
     */
    public int major() {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("Cannot read the major version of " + this, e);
        }
    }

    /**
     * The major version of the Redis whose features this server offers (sharded pub/sub,
     * {@code CLUSTER ADDSLOTSRANGE} and {@code PEXPIRE ... GT} from 7): Redis's own major, and
     * {@value #VALKEY_REDIS_MAJOR} for Valkey.
     */
    public int redisMajor() {
        return product == Product.VALKEY ? VALKEY_REDIS_MAJOR : major();
    }

    /** The product's executable name and the version, e.g. {@code valkey-server 8.0.1}. */
    public String describe() {
        return product.command() + " " + version;
    }

    /** E.g. {@code Valkey 8.0.1}. */
    @Override
    public String toString() {
        return product.displayName() + " " + version;
    }
}
