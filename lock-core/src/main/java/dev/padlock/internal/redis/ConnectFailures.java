package dev.padlock.internal.redis;

import io.lettuce.core.RedisCommandExecutionException;
import java.io.IOException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.InvalidAlgorithmParameterException;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;

/**
 * Names the first real cause of a failed connection, for the first line of a message: Lettuce
 * reports each as "Unable to connect to host/&lt;unresolved&gt;:port" and keeps the reason two or
 * three causes down.
 *
 * <p>Implementation notes. The causes are walked, with each one's suppressed exceptions (where
 * Lettuce's Cluster client keeps one failure per seed node), at most 32 of them,
 * and the first that matches wins in this order: Redis's reply to the connection's set-up
 * (authentication, then database selection, then anything else it refused), the trust store
 * (which file, and why it could not be used), the TLS handshake (which check: client
 * certificate, host name, validity, trust), the address (refused, unknown host). Nothing matched:
 * "cannot reach Redis" with the innermost message. The exception's cause chain keeps the rest.
 * Immutable.
 */
final class ConnectFailures {
    /** What a caller without the client's settings gets: the trust store is not named. */
    static final ConnectFailures UNCONFIGURED = new ConnectFailures("the trust store", -1);

    private static final int MAX_CAUSES = 32;
    private static final Pattern AUTH_REFUSED = Pattern.compile(
            "^(WRONGPASS|ERR invalid password|ERR invalid username-password|ERR AUTH .*without any password"
                    + "|ERR Client sent AUTH, but no password is set)");
    private static final Pattern HOST_MISMATCH = Pattern.compile("^No (subject alternative|name matching)");

    private final String trustStore;
    private final int database;

    private ConnectFailures(String trustStore, int database) {
        this.trustStore = trustStore;
        this.database = database;
    }

    /**
     * For a client's connections.
     *
     * @param trustStore the configured trust store, null for the JVM's default
     * @param database the database the URI selects, or -1 when it selects none (a Cluster)
     */
    static ConnectFailures of(@Nullable Path trustStore, int database) {
        return new ConnectFailures(trustStore == null ? "the JVM's default trust store" : "trust store " + trustStore,
                database);
    }

    /** What failed, most specific first; "cannot reach Redis: ..." when nothing more is known. */
    String describe(Throwable failure) {
        return specific(failure).orElseGet(() -> "cannot reach Redis: " + innermostMessage(failure));
    }

    /** What failed, when a cause of {@code failure} says more than that Redis could not be reached. */
    Optional<String> specific(Throwable failure) {
        List<Throwable> causes = causes(failure);
        String found = setUpReply(causes);
        if (found == null) {
            found = trustStoreFailure(causes);
        }
        if (found == null) {
            found = handshakeFailure(causes);
        }
        if (found == null) {
            found = addressFailure(causes);
        }
        return Optional.ofNullable(found);
    }

    /** Redis's error reply to the connection's set-up: {@code HELLO}/{@code AUTH}, {@code SELECT}, ... */
    private @Nullable String setUpReply(List<Throwable> causes) {
        RedisCommandExecutionException reply = first(causes, RedisCommandExecutionException.class);
        if (reply == null) {
            return null;
        }
        String answer = "Redis answered " + reply.getMessage();
        String text = String.valueOf(reply.getMessage());
        if (AUTH_REFUSED.matcher(text).find()) {
            return "authentication failed: " + answer;
        }
        if (text.startsWith("NOAUTH")) {
            return "authentication required (no password given): " + answer;
        }
        if (text.contains("DB index") || text.contains("SELECT is not allowed")) {
            return (database < 0 ? "selecting the database" : "selecting database " + database) + " failed: " + answer;
        }
        return "the connection's set-up was refused: " + answer;
    }

    /** The trust store could not be read (a wrong password, not a key store) or holds nothing to trust. */
    private @Nullable String trustStoreFailure(List<Throwable> causes) {
        for (Throwable t : causes) {
            if ((t instanceof IOException || t instanceof UnrecoverableKeyException) && thrownByKeyStoreLoad(t)) {
                boolean password = first(causes, UnrecoverableKeyException.class) != null
                        || String.valueOf(t.getMessage()).contains("password");
                return trustStore + " cannot be read: " + (password ? "wrong password (" + t.getMessage() + ")"
                        : t.getMessage());
            }
            if (t instanceof InvalidAlgorithmParameterException && String.valueOf(t.getMessage()).contains("trustAnchors")) {
                return trustStore + " holds no certificate to trust (" + t.getMessage() + ")";
            }
        }
        return null;
    }

    /** Which check of the TLS handshake failed. */
    private @Nullable String handshakeFailure(List<Throwable> causes) {
        String failed = "TLS handshake failed: ";
        for (Throwable t : causes) {
            if (t instanceof SSLException && String.valueOf(t.getMessage()).contains("certificate_required")) {
                return failed + "the server requires a client certificate and the client has none to give ("
                        + t.getMessage() + ")";
            }
        }
        for (Throwable t : causes) {
            if (t instanceof CertificateException && HOST_MISMATCH.matcher(String.valueOf(t.getMessage())).find()) {
                return failed + "the server's certificate does not match the host name or address connected to ("
                        + t.getMessage() + ")";
            }
        }
        for (Throwable t : causes) {
            if (t instanceof CertificateExpiredException || reason(t) == CertPathValidatorException.BasicReason.EXPIRED) {
                return failed + "the server's certificate has expired (" + t.getMessage() + ")";
            }
            if (t instanceof CertificateNotYetValidException
                    || reason(t) == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
                return failed + "the server's certificate is not valid yet (" + t.getMessage() + ")";
            }
        }
        for (int i = 0; i < causes.size(); i++) {
            Throwable t = causes.get(i);
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                // the certificate exception around it says which PKIX step failed
                Throwable told = i > 0 && causes.get(i - 1) instanceof CertificateException ? causes.get(i - 1) : t;
                return failed + "the server's certificate is not trusted by " + trustStore + " (" + told.getMessage()
                        + ")";
            }
        }
        SSLHandshakeException handshake = first(causes, SSLHandshakeException.class);
        if (handshake != null) {
            return failed + handshake.getMessage();
        }
        SSLException tls = first(causes, SSLException.class);
        return tls == null ? null : "TLS failed: " + tls.getMessage();
    }

    /** The address: nothing listens, no such host, no route, a connect timeout. */
    private static @Nullable String addressFailure(List<Throwable> causes) {
        UnknownHostException unknown = first(causes, UnknownHostException.class);
        if (unknown != null) {
            return "cannot reach Redis: unknown host " + unknown.getMessage();
        }
        SocketException socket = first(causes, SocketException.class);
        if (socket == null) {
            return null;
        }
        // Netty's message ends with ": /host:port"
        String text = String.valueOf(socket.getMessage()).replace(": /", ": ");
        if (text.startsWith("Connection refused")) {
            String at = text.startsWith("Connection refused: ") ? " at " + text.substring("Connection refused: ".length())
                    : " there";
            return "cannot reach Redis: connection refused: nothing listens" + at;
        }
        return "cannot reach Redis: " + text;
    }

    private static CertPathValidatorException.@Nullable Reason reason(Throwable t) {
        return t instanceof CertPathValidatorException invalid ? invalid.getReason() : null;
    }

    private static boolean thrownByKeyStoreLoad(Throwable t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals("java.security.KeyStore") && frame.getMethodName().equals("load")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The message of the innermost cause when the outer one is Lettuce's "Unable to connect to
     * ..." (which names a host Lettuce never resolved), else the outer message.
     */
    private static String innermostMessage(Throwable failure) {
        String outer = String.valueOf(failure.getMessage());
        if (!outer.startsWith("Unable to connect") || failure.getCause() == null) {
            return outer;
        }
        Throwable inner = failure;
        for (int depth = 0; inner.getCause() != null && inner.getCause() != inner && depth < MAX_CAUSES; depth++) {
            inner = inner.getCause();
        }
        return inner.getMessage() == null ? inner.getClass().getSimpleName() : inner.getMessage();
    }

    private static <T extends Throwable> @Nullable T first(List<Throwable> causes, Class<T> type) {
        for (Throwable t : causes) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** {@code failure}, its causes outermost first, each followed by its suppressed ones; no repeats. */
    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> causes = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> next = new ArrayDeque<>();
        next.push(failure);
        while (!next.isEmpty() && causes.size() < MAX_CAUSES) {
            Throwable t = next.pop();
            if (!seen.add(t)) {
                continue;
            }
            causes.add(t);
            Throwable[] suppressed = t.getSuppressed();
            for (int i = suppressed.length - 1; i >= 0; i--) {
                next.push(suppressed[i]);
            }
            if (t.getCause() != null) {
                next.push(t.getCause());
            }
        }
        return causes;
    }
}
