package dev.padlock.sim.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The lock-lua scripts, read from the class path as they ship: name (without .lua) to body. */
final class LockLuaScripts {

    static final String DIRECTORY = "dev/padlock/lua/";

    private LockLuaScripts() {
    }

    /** The body of {@code name}.lua. */
    static String body(String name) {
        try (InputStream in = LockLuaScripts.class.getClassLoader().getResourceAsStream(DIRECTORY + name + ".lua")) {
            if (in == null) {
                throw new IllegalArgumentException("no script " + DIRECTORY + name + ".lua on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every script in the directory (from a jar or a folder), by name. */
    static Map<String, String> all() {
        URL anchor = LockLuaScripts.class.getClassLoader().getResource(DIRECTORY + "lock_acquire.lua");
        if (anchor == null) {
            throw new IllegalStateException("lock-lua is not on the class path");
        }
        Map<String, String> scripts = new TreeMap<>();
        try {
            if (anchor.getProtocol().equals("jar")) {
                try (FileSystem jar = FileSystems.newFileSystem(anchor.toURI(), Map.of())) {
                    collect(jar.getPath("/" + DIRECTORY), scripts);
                }
            } else {
                collect(Path.of(anchor.toURI()).getParent(), scripts);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return scripts;
    }

    private static void collect(Path directory, Map<String, String> into) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(".lua")) {
                    into.put(name.substring(0, name.length() - 4), Files.readString(file, StandardCharsets.UTF_8));
                }
            }
        }
    }
}
