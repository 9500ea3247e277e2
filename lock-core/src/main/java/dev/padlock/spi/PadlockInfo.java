package dev.padlock.spi;

import dev.padlock.LockClient;
import dev.padlock.internal.SpiAccess;
import java.io.IOException;
import java.io.InputStream;
import java.util.OptionalInt;
import java.util.Properties;

/** Facts about this Padlock and its clients, for health checks and tools. */
public final class PadlockInfo {
    private static final String VERSION = readVersion();

    private PadlockInfo() {
    }

    /** {@return the version of the {@code lock-core} jar, as the client registry records it; {@code unknown} when unreadable} */
    public static String version() {
        return VERSION;
    }

    /**
     * Owners whose watchdog leases {@code client} renews now (one per owner and lock).
     *
     * @param client the client
     * @return how many; empty when {@code client} was not made by {@link LockClient#connect} or
     *     {@link LockClient#create}
     */
    public static OptionalInt renewedLeases(LockClient client) {
        return SpiAccess.renewedLeases(client);
    }

    private static String readVersion() {
        try (InputStream in = PadlockInfo.class.getResourceAsStream("/dev/padlock/internal/padlock-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
