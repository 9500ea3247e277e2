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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a {@code redis-server} executable: the one on the {@code PATH}, else the one the
 * {@code com.github.codemonstur:embedded-redis} jar ships for this platform (extracted once per JVM
 * to a temporary file).
 *
 * <p>The environment variable {@value #CHOICE_VARIABLE} (or the system property
 * {@value #CHOICE_PROPERTY}) set to {@code embedded} skips the {@code PATH}, so that the embedded
 * binary (Redis 6.2) serves even where a {@code redis-server} is installed: that is how a machine
 * with Redis 7 runs the suite as a fresh machine would. Unset, empty or {@code path}: the default
 * order.
 *
 * <p>Thread-safe; results are cached per JVM.
 */
public final class RedisBinary {

    /** Where a binary came from. */
    public enum Origin {
        /** {@code redis-server} found on the {@code PATH}. */
        PATH,
        /** Extracted from the embedded-redis jar. */
        EMBEDDED
    }

    /** The environment variable that chooses the binary: {@code embedded} skips the {@code PATH}. */
    public static final String CHOICE_VARIABLE = "PADLOCK_REDIS_BINARY";
    /** The system property that does the same, checked after the environment variable. */
    public static final String CHOICE_PROPERTY = "padlock.redis.binary";

    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    private static final Pattern VERSION = Pattern.compile("v=(\\S+)");
    /** Whether the skipped PATH was logged already (once per JVM). */
    private static final AtomicBoolean SKIP_LOGGED = new AtomicBoolean();
    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();
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

    /** The version {@code redis-server --version} reports, e.g. {@code 7.0.15}. */
    public String version() {
        return version(path);
    }

    /**
     * The first binary in the project's order: {@code PATH} (unless {@link #embeddedOnly()}), then
     * embedded.
     *
     * @throws IllegalStateException when neither is available
     */
    public static RedisBinary locate() {
        Optional<RedisBinary> found = onPath().or(RedisBinary::embedded);
        return found.orElseThrow(() -> new IllegalStateException(
                "No redis-server: none on the PATH" + (embeddedOnly() ? " (skipped: " + CHOICE_VARIABLE + "=embedded)" : "")
                        + " and the embedded-redis jar has none for "
                        + platform() + " (resource " + embeddedResourceName().orElse("none") + ")"));
    }

    /**
     * {@code redis-server} on the {@code PATH}, when there is an executable one; always empty when
     * {@link #embeddedOnly()}.
     */
    public static Optional<RedisBinary> onPath() {
        if (embeddedOnly()) {
            if (SKIP_LOGGED.compareAndSet(false, true)) {
                LOG.info("{} (or -D{}) is 'embedded': the PATH's redis-server is skipped, the embedded binary serves",
                        CHOICE_VARIABLE, CHOICE_PROPERTY);
            }
            return Optional.empty();
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String directory : pathVariable.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new RedisBinary(candidate.toAbsolutePath(), Origin.PATH));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@value #CHOICE_VARIABLE} (or {@value #CHOICE_PROPERTY}) asks for the embedded
     * binary only.
     *
     * @throws IllegalStateException for a value other than {@code embedded}, {@code path} or empty
     */
    public static boolean embeddedOnly() {
        String value = System.getenv(CHOICE_VARIABLE);
        String from = CHOICE_VARIABLE;
        if (value == null || value.isBlank()) {
            value = System.getProperty(CHOICE_PROPERTY);
            from = CHOICE_PROPERTY;
        }
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "embedded" -> true;
            case "path" -> false;
            default -> throw new IllegalStateException(from + " must be 'embedded' or 'path', got '" + value + "'");
        };
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
     * Runs {@code <binary> --version} (bounded to 10 s) and returns the version it names.
     *
     * @throws IllegalStateException when the binary does not run or prints no version
     */
    public static String version(Path binary) {
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

    private static String runVersion(Path binary) {
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
            Matcher matcher = VERSION.matcher(text);
            if (process.exitValue() != 0 || !matcher.find()) {
                throw new IllegalStateException(binary + " --version exited with "
                        + process.exitValue() + " and printed: " + text);
            }
            return matcher.group(1);
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
        return "redis-server " + path + " (" + origin + ")";
    }
}
