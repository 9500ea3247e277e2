package dev.padlock.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Lua script read once from the class path, with the SHA1 that {@code EVALSHA} needs computed
 * here, so that the first call can already be an {@code EVALSHA}.
 */
public final class Script {
    private final String name;
    private final String body;
    private final String sha1;

    private Script(String name, String body) {
        this.name = name;
        this.body = body;
        this.sha1 = sha1Hex(body);
    }

    /**
     * Reads the class path resource {@code resource} (an absolute path such as
     * {@code /dev/padlock/shedlock/shedlock_lock.lua}) through {@code anchor}'s class loader.
     *
     * @param anchor a class whose loader sees the resource
     * @param resource the resource's absolute path
     * @return the script, named by its file name without {@code .lua}
     * @throws IllegalStateException when the resource is missing
     */
    public static Script load(Class<?> anchor, String resource) {
        Objects.requireNonNull(anchor, "anchor");
        Objects.requireNonNull(resource, "resource");
        try (InputStream in = open(anchor, resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the class path");
            }
            String name = resource.substring(resource.lastIndexOf('/') + 1).replaceFirst("\\.lua$", "");
            return new Script(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + resource, e);
        }
    }

    /**
     * {@code resource} through {@code anchor}, then, when {@code anchor} is in a named module (the
     * module path), through its class loader: a named module's {@code Class.getResourceAsStream}
     * sees only that module's resources, while a script lives in another jar ({@code lock-lua}'s
     * scripts in the automatic module {@code dev.padlock.lua}), whose directories without classes
     * any class loader that defines it finds. On the class path the first lookup is the only one.
     */
    private static @Nullable InputStream open(Class<?> anchor, String resource) {
        InputStream in = anchor.getResourceAsStream(resource);
        if (in != null || !anchor.getModule().isNamed() || !resource.startsWith("/")) {
            return in;
        }
        ClassLoader loader = anchor.getClassLoader();
        String name = resource.substring(1);
        return loader == null ? ClassLoader.getSystemResourceAsStream(name) : loader.getResourceAsStream(name);
    }

    /**
     * A script from its text.
     *
     * @param name the script's name, used in messages
     * @param body the Lua text
     * @return the script
     */
    public static Script of(String name, String body) {
        return new Script(Objects.requireNonNull(name, "name"), Objects.requireNonNull(body, "body"));
    }

    /** {@return the file name without {@code .lua}; used in error messages} */
    public String name() {
        return name;
    }

    /** {@return the script's text} */
    public String body() {
        return body;
    }

    /** {@return the SHA1 of {@link #body()} in lower-case hex} */
    public String sha1() {
        return sha1;
    }

    /**
     * The SHA1 of {@code text}'s UTF-8 bytes, as Redis names a script.
     *
     * @param text the text
     * @return the SHA1 in lower-case hex
     */
    public static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
