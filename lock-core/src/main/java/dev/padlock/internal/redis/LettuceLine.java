package dev.padlock.internal.redis;

import io.lettuce.core.LettuceVersion;
import io.netty.util.Version;
import org.jspecify.annotations.Nullable;

/**
 * Which Lettuce line and which Netty the class path has, checked once before the first connection.
 * Padlock runs on the pair each Spring Boot line manages: Lettuce 6 (6.6 tested) on Netty 4.1, as
 * Boot 3.5 has them, and Lettuce 7 on Netty 4.2, as Boot 4 has them; it uses only the API both
 * Lettuce lines share. What cannot work fails here with a message that names the fix: Lettuce 7 on
 * Netty 4.1 (an application that raised Lettuce and not Netty), whose first connection would
 * otherwise die deep inside Lettuce with a {@code NoClassDefFoundError}, and a Lettuce older than
 * 6.6, the oldest this build is tested on (Boot 3.5's; older 6.x lines may lack API lock-core calls).
 */
final class LettuceLine {
    /** A Netty 4.2 class that Lettuce 7 uses for its event loops; Netty 4.1 has no such class. */
    private static final String NETTY_42_CLASS = "io.netty.channel.MultiThreadIoEventLoopGroup";

    private LettuceLine() {
    }

    /** Throws {@link IllegalStateException} when the class path's Lettuce and Netty cannot run Padlock. */
    static void check() {
        String problem = problem(LettuceVersion.getVersion(), netty42(), nettyVersion());
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
    }

    /**
     * What is wrong with Lettuce {@code lettuceVersion} (as its jar's manifest says it, such as
     * {@code 6.6.0.RELEASE/643bd47}; null when unknown, as in a repackaged jar, which is let be) on
     * Netty {@code nettyVersion}, or null when nothing is.
     */
    static @Nullable String problem(String lettuceVersion, boolean netty42, String nettyVersion) {
        int major = major(lettuceVersion);
        if (major < 0) {
            return null;
        }
        String lettuce = lettuceVersion.contains("/") ? lettuceVersion.substring(0, lettuceVersion.indexOf('/')) : lettuceVersion;
        if (major < 6 || major == 6 && minor(lettuceVersion) < 6) {
            return "Padlock needs Lettuce 6.6 or later, but the class path has Lettuce " + lettuce
                    + ": use the Lettuce your Spring Boot line manages (3.5: 6.6, 4: 7), or lettuce-core 6.6 or later";
        }
        if (major >= 7 && !netty42) {
            return "Lettuce " + lettuce + " runs on Netty 4.2, but the class path has Netty " + nettyVersion
                    + ": keep Lettuce and Netty as your platform manages them together (Spring Boot 3.5: Lettuce 6.6"
                    + " on Netty 4.1, Padlock runs on both without overrides), or raise Netty to 4.2 as well"
                    + " (see docs/user-guide/spring.md, Supported lines)";
        }
        return null;
    }

    /** The major version in {@code version}, or -1 when it does not start with a number. */
    static int major(String version) {
        if (version == null) {
            return -1;
        }
        int end = 0;
        while (end < version.length() && Character.isDigit(version.charAt(end))) {
            end++;
        }
        return end == 0 || end > 4 ? -1 : Integer.parseInt(version.substring(0, end));
    }

    /** The minor version in {@code version} (after the first dot), or -1 when there is none. */
    static int minor(String version) {
        int dot = version.indexOf('.');
        return dot < 0 ? -1 : major(version.substring(dot + 1));
    }

    private static boolean netty42() {
        try {
            Class.forName(NETTY_42_CLASS, false, LettuceLine.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private static String nettyVersion() {
        return Version.identify().values().stream().filter(v -> v.artifactId().equals("netty-common"))
                .map(Version::artifactVersion).findFirst().orElse("4.1 or older");
    }
}
