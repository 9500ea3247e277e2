package dev.padlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a server executable: {@code redis-server} on the {@code PATH}, else the one the
 * {@code com.github.codemonstur:embedded-redis} jar ships for this platform (extracted once per JVM
 * to a temporary file).
 *
 * <p>The environment variable {@value #CHOICE_VARIABLE} (or, when it is unset, the system property
 * {@value #CHOICE_PROPERTY}) chooses otherwise (see {@link Choice}):
 * <ul>
 *   <li>{@code embedded} skips the {@code PATH}, so that the embedded binary (Redis 6.2) serves
 *       even where a {@code redis-server} is installed: that is how a machine with Redis 7 runs
 *       the suite as a fresh machine would;</li>
 *   <li>{@code valkey} runs {@code valkey-server} from the {@code PATH} instead of
 *       {@code redis-server}, and nothing else: without one, {@link #locate()} and
 *       {@link #onPath()} fail and say so, rather than test another server;</li>
 *   <li>unset, empty or {@code path}: the default order.</li>
 * </ul>
 *
 * <p>Thread-safe; results are cached per JVM.
 */
public final class RedisBinary {

    /** Where a binary came from. */
    public enum Origin {
        /** Found on the {@code PATH}: {@code redis-server}, or {@code valkey-server} when chosen. */
        PATH,
        /** Extracted from the embedded-redis jar. */
        EMBEDDED
    }

    /** What {@value #CHOICE_VARIABLE} or {@value #CHOICE_PROPERTY} asks for. */
    public enum Choice {
        /** The default order: {@code redis-server} on the {@code PATH}, then embedded. */
        PATH,
        /** The embedded binary only: the {@code PATH} is skipped. */
        EMBEDDED,
        /** {@code valkey-server} on the {@code PATH}, and nothing else. */
        VALKEY
    }

    /**
     * The environment variable that chooses the binary: {@code embedded}, {@code valkey} or
     * {@code path} (see {@link Choice}).
     */
    public static final String CHOICE_VARIABLE = "PADLOCK_REDIS_BINARY";
    /** The system property that does the same, checked after the environment variable. */
    public static final String CHOICE_PROPERTY = "padlock.redis.binary";

    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    /** The choices (a skipped PATH, Valkey) logged already: each once per JVM. */
    private static final Set<Choice> CHOICES_LOGGED = ConcurrentHashMap.newKeySet();
    private static final Map<Path, ServerVersion> VERSIONS = new ConcurrentHashMap<>();
    private static final Map<Path, Boolean> TLS_SUPPORT = new ConcurrentHashMap<>();
    private static final Object EXTRACT_LOCK = new Object();

    /** The extracted embedded binary, once extracted; guarded by {@link #EXTRACT_LOCK}. */
    private static Path extracted;

    private final Path path;
    private final Origin origin;

    private RedisBinary(Path path, Origin origin) {
        this.path = path;
        this.origin = origin;
    }

    /** The executable. */
    public Path path() {
        return path;
    }

    /** Where it came from. */
    public Origin origin() {
        return origin;
    }

    /** The version {@code <binary> --version} reports, e.g. {@code 7.0.15}. */
    public String version() {
        return version(path);
    }

    /** What the binary is and its version, e.g. {@code Valkey 8.0.1}. */
    public ServerVersion serverVersion() {
        return serverVersion(path);
    }

    /**
     * The first binary in the project's order: {@code PATH} (unless {@link #embeddedOnly()}), then
     * embedded; with {@link Choice#VALKEY}, {@code valkey-server} on the {@code PATH} only.
     *
     * @throws IllegalStateException when none is available
     */
    public static RedisBinary locate() {
        return locate(choice(), System.getenv("PATH"));
    }

    /** {@link #locate()} for {@code choice} and the search path {@code pathVariable} (may be null). */
    static RedisBinary locate(Choice choice, String pathVariable) {
        Optional<RedisBinary> found = onPath(choice, pathVariable);
        if (choice == Choice.VALKEY) {
            return found.orElseThrow(); // onPath() throws first when there is none
        }
        String skipped = choice == Choice.EMBEDDED ? " (skipped: " + CHOICE_VARIABLE + "=embedded)" : "";
        return found.or(RedisBinary::embedded).orElseThrow(() -> new IllegalStateException(
                "No redis-server: none on the PATH" + skipped + " and the embedded-redis jar has none for "
                        + platform() + " (resource " + embeddedResourceName().orElse("none") + ")"));
    }

    /**
     * The server on the {@code PATH} that {@link #choice()} asks for: {@code redis-server} when
     * there is an executable one ({@link Choice#PATH}); always empty for {@link Choice#EMBEDDED};
     * {@code valkey-server} for {@link Choice#VALKEY}.
     *
     * @throws IllegalStateException for {@link Choice#VALKEY} when no {@code valkey-server} is on
     *     the {@code PATH}
     */
    public static Optional<RedisBinary> onPath() {
        return onPath(choice(), System.getenv("PATH"));
    }

    /** {@link #onPath()} for {@code choice} and the search path {@code pathVariable} (may be null). */
    static Optional<RedisBinary> onPath(Choice choice, String pathVariable) {
        return switch (choice) {
            case PATH -> findOnPath(ServerVersion.Product.REDIS.command(), pathVariable);
            case EMBEDDED -> {
                logChoiceOnce(choice, "{} (or -D{}) is 'embedded': the PATH's redis-server is skipped, the embedded binary serves",
                        CHOICE_VARIABLE, CHOICE_PROPERTY);
                yield Optional.empty();
            }
            case VALKEY -> {
                String command = ServerVersion.Product.VALKEY.command();
                RedisBinary valkey = findOnPath(command, pathVariable).orElseThrow(() -> new IllegalStateException(
                        CHOICE_VARIABLE + " (or -D" + CHOICE_PROPERTY + ") is 'valkey' but no executable " + command
                                + " is on the PATH (" + pathVariable + "); install it (Debian: apt-get install -t"
                                + " bookworm-backports valkey-server) or unset the choice"));
                logChoiceOnce(choice, "{} (or -D{}) is 'valkey': {} ({}) serves, never redis-server",
                        CHOICE_VARIABLE, CHOICE_PROPERTY, valkey.serverVersion(), valkey.path());
                yield Optional.of(valkey);
            }
        };
    }

    /**
     * Whether {@value #CHOICE_VARIABLE} (or {@value #CHOICE_PROPERTY}) asks for the embedded
     * binary only.
     *
     * @throws IllegalStateException for a value {@link #choice()} refuses
     */
    public static boolean embeddedOnly() {
        return choice() == Choice.EMBEDDED;
    }

    /**
     * What {@value #CHOICE_VARIABLE}, or when it is unset or blank {@value #CHOICE_PROPERTY}, asks
     * for: {@code embedded}, {@code valkey} or {@code path} (any case); unset or blank is
     * {@link Choice#PATH}.
     *
     * @throws IllegalStateException for any other value
     */
    public static Choice choice() {
        String value = System.getenv(CHOICE_VARIABLE);
        String from = CHOICE_VARIABLE;
        if (value == null || value.isBlank()) {
            value = System.getProperty(CHOICE_PROPERTY);
            from = CHOICE_PROPERTY;
        }
        if (value == null || value.isBlank()) {
            return Choice.PATH;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "embedded" -> Choice.EMBEDDED;
            case "valkey" -> Choice.VALKEY;
            case "path" -> Choice.PATH;
            default -> throw new IllegalStateException(
                    from + " must be 'embedded', 'valkey' or 'path', got '" + value + "'");
        };
    }

    private static Optional<RedisBinary> findOnPath(String command, String pathVariable) {
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String directory : pathVariable.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, command);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new RedisBinary(candidate.toAbsolutePath(), Origin.PATH));
            }
        }
        return Optional.empty();
    }

    private static void logChoiceOnce(Choice choice, String format, Object... arguments) {
        if (CHOICES_LOGGED.add(choice)) {
            LOG.info(format, arguments);
        }
    }

    /**
     * The binary the embedded-redis jar ships for this OS and architecture, extracted to a
     * temporary executable file (once per JVM, deleted on exit); empty when the jar has none.
     *
     * @throws UncheckedIOException when extraction fails
     */
    public static Optional<RedisBinary> embedded() {
        Optional<String> resource = embeddedResourceName();
        if (resource.isEmpty()) {
            return Optional.empty();
        }
        synchronized (EXTRACT_LOCK) {
            if (extracted == null) {
                extracted = extract(resource.get()).orElse(null);
            }
            return Optional.ofNullable(extracted).map(p -> new RedisBinary(p, Origin.EMBEDDED));
        }
    }

    /**
     * The class-path resource the embedded-redis jar uses for this platform, if it ships one.
     */
    public static Optional<String> embeddedResourceName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (os.contains("linux")) {
            if (amd64) {
                return Optional.of("redis-server-6.2.6-v5-linux-amd64");
            }
            if (arm64) {
                return Optional.of("redis-server-6.2.7-linux-arm64");
            }
            if (x86) {
                return Optional.of("redis-server-6.2.7-linux-386");
            }
        } else if (os.contains("mac")) {
            if (amd64) {
                return Optional.of("redis-server-6.2.6-v5-darwin-amd64");
            }
            if (arm64) {
                return Optional.of("redis-server-6.2.6-v5-darwin-arm64");
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code <binary> --version} (bounded to 10 s) and returns the version it names, the
     * server's own (Valkey's for Valkey).
     *
     * @throws IllegalStateException when the binary does not run or prints no version
     */
    public static String version(Path binary) {
        return serverVersion(binary).version();
    }

    /**
     * Runs {@code <binary> --version} (bounded to 10 s, once per binary and JVM) and returns what
     * it says: Redis or Valkey, and the version.
     *
     * @throws IllegalStateException when the binary does not run or prints no version
     */
    public static ServerVersion serverVersion(Path binary) {
        Objects.requireNonNull(binary, "binary");
        return VERSIONS.computeIfAbsent(binary.toAbsolutePath(), RedisBinary::runVersion);
    }

    /**
     * Whether {@code binary} was built with TLS: it runs it (bounded to 10 s) with
     * {@code --port 0 --tls-port 0}, which a TLS build accepts (and then exits, listening
     * nowhere) and a build without TLS refuses as a bad directive.
     */
    public static boolean supportsTls(Path binary) {
        Objects.requireNonNull(binary, "binary");
        return TLS_SUPPORT.computeIfAbsent(binary.toAbsolutePath(), RedisBinary::probeTls);
    }

    private static boolean probeTls(Path binary) {
        Path output = null;
        try {
            output = Files.createTempFile("padlock-redis-tls-probe", ".log");
            Process process = new ProcessBuilder(binary.toString(), "--port", "0", "--tls-port", "0",
                    "--save", "", "--appendonly", "no")
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(binary + " --tls-port 0 did not exit within 10 s");
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            return text.contains("not listen anywhere") && !text.contains("Bad directive");
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run " + binary, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + binary, e);
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    private static ServerVersion runVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            byte[] output;
            try (InputStream in = process.getInputStream()) {
                output = in.readNBytes(4096);
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(binary + " --version did not finish within 10 s");
            }
            String text = new String(output, StandardCharsets.UTF_8).trim();
            if (process.exitValue() == 0 && text.contains("v=")) {
                return ServerVersion.parse(text);
            }
            throw new IllegalStateException(binary + " --version exited with "
                    + process.exitValue() + " and printed: " + text);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + binary + " --version", e);
        }
    }

    private static Optional<Path> extract(String resource) {
        ClassLoader loader = RedisBinary.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path directory = Files.createTempDirectory("padlock-redis-bin-");
            directory.toFile().deleteOnExit(); // deleted after the file, which is registered later
            Path target = directory.resolve(resource);
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true, true)) {
                throw new IOException("Cannot make " + target + " executable");
            }
            target.toFile().deleteOnExit();
            return Optional.of(target);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract the embedded redis-server " + resource, e);
        }
    }

    private static String platform() {
        return System.getProperty("os.name") + "/" + System.getProperty("os.arch");
    }

    @Override
    public String toString() {
        return "server binary " + path + " (" + origin + ")";
    }
}
