package dev.padlock.internal.base;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/** Parsing and printing of Redis URIs: the one place that hides their passwords. */
public final class RedisUris {
    /** Everything between {@code //} and the last {@code @} before the first {@code /}: the user info. */
    private static final Pattern USER_INFO = Pattern.compile("//[^/]*@");

    private RedisUris() {
    }

    /** {@code uri} with its user info (user name, password) replaced by {@code ***}. */
    public static String redact(String uri) {
        return USER_INFO.matcher(uri).replaceFirst("//***@");
    }

    /**
     * Parses {@code uri} as Lettuce does, checks it names a host and port, and sets
     * {@code timeout} as the bound on its connection handshake (Lettuce's {@code RedisURI}
     * timeout, which otherwise defaults to 60 s).
     *
     * @throws IllegalArgumentException when it is not a Redis URI; the message hides passwords
     */
    public static RedisURI parse(String uri, Duration timeout) {
        String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")).toLowerCase(Locale.ROOT) : "";
        if (scheme.equals("redis") || scheme.equals("rediss")) {
            requireHostAndPort(uri);
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw notARedisUri(uri, "Lettuce cannot read it");
        }
        parsed.setTimeout(timeout);
        return parsed;
    }

    private static void requireHostAndPort(String uri) {
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            throw notARedisUri(uri, e.getReason() + " at index " + e.getIndex());
        }
        if (parsed.getHost() == null) {
            throw notARedisUri(uri, "no host, or a port that is not a number");
        }
    }

    private static IllegalArgumentException notARedisUri(String uri, String reason) {
        return new IllegalArgumentException("not a Redis URI: " + redact(uri) + " (" + reason
                + "); expected redis://[user:password@]host[:port][/db], rediss://..., "
                + "or redis-sentinel://host:port[,host:port]#masterName");
    }
}
