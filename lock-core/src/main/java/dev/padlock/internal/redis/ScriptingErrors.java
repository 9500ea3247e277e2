package dev.padlock.internal.redis;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Redis's answers about running scripts, as texts differ between Redis 6.2, 7.x and Valkey: the
 * ones the script runner acts on (a function not loaded, a library loaded already) and the ones
 * whose fix a caller must be told (an ACL user that may not run {@code EVAL} or {@code FCALL} or
 * load functions; a server without functions), each told once, in the exception of the call that
 * met it.
 */
final class ScriptingErrors {
    /** The command an ACL refused: {@code NOPERM [this user|User x] has no permissions to run the 'evalsha' command}. */
    private static final Pattern REFUSED = Pattern.compile("^NOPERM\\b.*?'([a-z_]+(?:\\|[a-z_-]+)?)' command",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    /** A command the server does not have: {@code ERR unknown command `FCALL`} (6.2) or {@code 'fcall'} (7, Valkey). */
    private static final Pattern UNKNOWN = Pattern.compile("unknown command [`']([a-z_]+)[`']", Pattern.CASE_INSENSITIVE);
    private static final String GUIDE = " (docs/user-guide/configuration.md, \"Scripting\")";

    private ScriptingErrors() {
    }

    /** Whether {@code failure} says the called function is not loaded: {@code ERR Function not found} (Redis 7, Valkey). */
    static boolean isFunctionMissing(Throwable failure) {
        return failure instanceof io.lettuce.core.RedisCommandExecutionException && failure.getMessage() != null
                && failure.getMessage().toLowerCase(Locale.ROOT).contains("function not found");
    }

    /**
     * Whether {@code failure} says a library of that name is loaded already: {@code ERR Library
     * 'x' already exists} (Redis 7), {@code Library x already exists} (Valkey).
     */
    static boolean isLibraryLoaded(Throwable failure) {
        String message = failure instanceof io.lettuce.core.RedisCommandExecutionException ? failure.getMessage() : null;
        return message != null && message.toLowerCase(Locale.ROOT).contains("library")
                && message.toLowerCase(Locale.ROOT).contains("already exists");
    }

    /** What to do about Redis's answer {@code message}, to follow it in a message; empty when nothing is known. */
    static String fix(@Nullable String message) {
        if (message == null) {
            return "";
        }
        Matcher refused = REFUSED.matcher(message);
        if (refused.find()) {
            return switch (refused.group(1).toLowerCase(Locale.ROOT)) {
                case "eval", "evalsha", "eval_ro", "evalsha_ro" -> ": the ACL user may not run EVAL/EVALSHA, which"
                        + " Padlock's scripts run with by default. Grant +eval +evalsha (or +@scripting), or use"
                        + " LockConfig.Scripting.FUNCTIONS, which needs +fcall instead" + GUIDE;
                case "fcall", "fcall_ro" -> ": the ACL user may not run FCALL, which LockConfig.Scripting.FUNCTIONS"
                        + " runs Padlock's scripts with. Grant +fcall" + GUIDE;
                case "function|load", "function|list", "function" -> ": the ACL user may not load Padlock's functions"
                        + " library, which the server does not have in this Padlock version (loading reads the library"
                        + " with FUNCTION LIST, then loads it with FUNCTION LOAD). Grant +function|list"
                        + " +function|load, or have an administrator load it once" + GUIDE;
                default -> "";
            };
        }
        if (message.startsWith("TRYAGAIN")) {
            return ": the key's Cluster slot is migrating (a resharding) and the call's keys were not all on one node;"
                    + " it was sent again for the command timeout, and the migration had not ended";
        }
        Matcher unknown = UNKNOWN.matcher(message);
        if (unknown.find() && unknown.group(1).toLowerCase(Locale.ROOT).matches("fcall|fcall_ro|function")) {
            return ": this server has no Redis Functions, which LockConfig.Scripting.FUNCTIONS needs (Redis 7 or"
                    + " later, Valkey 7.2 or later). Use LockConfig.Scripting.EVAL with it" + GUIDE;
        }
        return "";
    }
}
