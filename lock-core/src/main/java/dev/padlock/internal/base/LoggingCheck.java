package dev.padlock.internal.base;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * Says once per JVM, on standard error, that Padlock's warnings go nowhere when no SLF4J provider
 * is on the class path: SLF4J then falls back to its no-operation logger, and a lease lost or a
 * renewal failing would be logged to nobody. Checked when a client is created.
 */
public final class LoggingCheck {

    /** The one line printed. */
    public static final String NO_PROVIDER = "Padlock: no SLF4J provider is on the class path, so Padlock's"
            + " warnings (a lease lost, renewals failing, Redis unreachable) go nowhere; add one, such as"
            + " org.slf4j:slf4j-simple or ch.qos.logback:logback-classic (docs/user-guide/configuration.md#logging)";

    /** Whether this JVM was told; set once. */
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private LoggingCheck() {
    }

    /** Prints {@link #NO_PROVIDER} to {@link System#err} when SLF4J has no provider, once per JVM. */
    public static void warnOnceWithoutProvider() {
        warnWithoutProvider(LoggerFactory.getILoggerFactory(), System.err, WARNED);
    }

    /**
     * Prints {@link #NO_PROVIDER} to {@code err} when {@code factory} is SLF4J's no-operation
     * fallback and {@code warned} was not set yet; sets it.
     *
     * @return whether it printed
     */
    static boolean warnWithoutProvider(ILoggerFactory factory, PrintStream err, AtomicBoolean warned) {
        if (factory instanceof NOPLoggerFactory && warned.compareAndSet(false, true)) {
            err.println(NO_PROVIDER);
            return true;
        }
        return false;
    }
}
