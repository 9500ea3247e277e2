package dev.padlock.cli;

import dev.padlock.LockConfig;
import dev.padlock.spi.PadlockInfo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code padlock}: the operator's view of Padlock (and Redisson) locks on Redis. Run through
 * {@code ./padlock} at the repository root, or {@code java -jar lock-cli/target/padlock.jar}.
 *
 * <p>Exit status: 0 when the command did its work (whether or not the lock is held), 1 when Redis
 * cannot be reached or answers with an error, or a {@code force-unlock} was not confirmed or was
 * asked of a ShedLock lock, 2 for bad usage (an unknown option or command, a missing argument, an
 * option's value that LockConfig rejects, such as a URI that is not a Redis URI).
 */
@Command(name = "padlock", mixinStandardHelpOptions = true, versionProvider = PadlockCommand.Version.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = "Who holds a lock, since when, and who waits for it. Reads Redis directly; writes only in force-unlock.",
        subcommands = {ShowCommand.class, LsCommand.class, ClientsCommand.class, WatchCommand.class,
            ForceUnlockCommand.class, DemoCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Exit status: 0 done (held or not), 1 Redis unreachable or failed (or force-unlock not confirmed, or "
            + "refused for a ShedLock lock), 2 bad usage (a --uri that is not a Redis URI included)."})
public final class PadlockCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Option(names = "--uri", scope = ScopeType.INHERIT, paramLabel = "URI",
            description = "One server (redis://, rediss:// for TLS, user and password in the URI) or Sentinel "
                    + "(redis-sentinel://host:port[,host:port]#master), as LockConfig reads it. Default: ${DEFAULT-VALUE}.",
            defaultValue = "redis://127.0.0.1:6379")
    String uri;

    @Option(names = "--cluster", scope = ScopeType.INHERIT, split = ",", paramLabel = "URI",
            description = "Redis Cluster seed nodes, comma-separated (in place of --uri).")
    List<String> cluster;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print JSON instead of text.")
    boolean json;

    @Option(names = "--trust-store", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "PKCS#12 or JKS file verifying rediss:// servers (default: the JVM's).")
    Path trustStore;

    @Option(names = "--trust-store-password", scope = ScopeType.INHERIT, paramLabel = "PASSWORD",
            description = "The trust store's password.")
    char[] trustStorePassword;

    @Option(names = "--timeout-ms", scope = ScopeType.INHERIT, paramLabel = "MS", defaultValue = "3000",
            description = "Bound on one Redis round trip, in ms. Default: ${DEFAULT-VALUE}.")
    long timeoutMillis;

    @Option(names = "--scripting", scope = ScopeType.INHERIT, paramLabel = "EVAL|FUNCTIONS", defaultValue = "EVAL",
            description = "How force-unlock runs its script: EVAL, or FUNCTIONS (FCALL of Padlock's functions library, "
                    + "for a server whose ACL denies EVAL), as LockConfig.Scripting. Default: ${DEFAULT-VALUE}.")
    LockConfig.Scripting scripting = LockConfig.Scripting.EVAL;

    /** Where force-unlock reads its confirmation; standard input unless a test sets it. */
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    public static void main(String[] args) {
        // warnings (Lettuce's, Padlock's) reach java.util.logging: one line each on stderr
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
        }
        System.exit(commandLine(new PadlockCommand()).execute(args));
    }

    /** The command line of {@code command}, with the exit statuses above. */
    static CommandLine commandLine(PadlockCommand command) {
        CommandLine line = new CommandLine(command);
        line.setCaseInsensitiveEnumValuesAllowed(true); // --scripting functions
        line.setExecutionExceptionHandler((failure, cmd, parsed) -> {
            cmd.getErr().println("padlock: " + failure.getMessage());
            cmd.getErr().flush();
            return 1;
        });
        configureDemo(line);
        return line;
    }

    /** {@code padlock demo} passes every argument on to the demo's own parser. */
    static void configureDemo(CommandLine line) {
        CommandLine demo = line.getSubcommands().get("demo");
        demo.setUnmatchedOptionsArePositionalParams(true);
        demo.setUnmatchedArgumentsAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * The settings of a LockConfig for these options (the registry off: the command is not a lock user).
     *
     * @throws ParameterException (exit 2) when LockConfig rejects one of them
     */
    LockConfig config() {
        try {
            LockConfig.Builder builder = LockConfig.builder()
                    .commandTimeout(Duration.ofMillis(timeoutMillis))
                    .scripting(scripting)
                    .clientRegistry(false);
            if (cluster != null && !cluster.isEmpty()) {
                builder.clusterUris(cluster.toArray(String[]::new));
            } else {
                builder.redisUri(uri);
            }
            if (trustStore != null) {
                builder.trustStore(trustStore, trustStorePassword);
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw badUsage(e);
        }
    }

    /**
     * Connects as the options say.
     *
     * @throws ParameterException (exit 2) when a URI is not a Redis URI (another scheme such as
     *     {@code http://}, no host): Padlock reads a URI as it connects, and rejects it with
     *     {@link IllegalArgumentException} before it tries the network
     * @throws dev.padlock.RedisUnavailableException (exit 1) when Redis cannot be reached
     */
    Connection connect() {
        LockConfig config = config();
        try {
            return Connection.open(config);
        } catch (IllegalArgumentException e) {
            throw badUsage(e);
        }
    }

    /** Bad usage: picocli prints the message, then the usage help, and exits 2. */
    private ParameterException badUsage(IllegalArgumentException rejected) {
        return new ParameterException(spec.commandLine(), "padlock: " + rejected.getMessage(), rejected);
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** The Padlock version, as lock-core knows it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"padlock " + PadlockInfo.version()};
        }
    }
}
