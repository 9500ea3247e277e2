package dev.padlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The built lock-core jar is the module {@code dev.padlock}: it exports the API and the SPI and
 * nothing else, and it works on the module path. Run by Surefire's {@code built-jar} execution
 * after the jar is packaged (lock-core's pom), which passes the jar's path as
 * {@code padlock.builtJar} and the file listing lock-core's runtime dependencies as
 * {@code padlock.runtimeClasspath}. The other tests run on the class path, where the module
 * descriptor is ignored.
 */
class BuiltJarModuleIT {
    private static final String MODULE = "dev.padlock";

    private static Path builtJar() {
        Path jar = Path.of(property("padlock.builtJar"));
        assertThat(jar).as("the built jar").isRegularFile();
        return jar;
    }

    /** The built jar and the jars of lock-core's runtime dependencies: a user's module path. */
    private static Path[] modulePath() throws IOException {
        Path listing = Path.of(property("padlock.runtimeClasspath"));
        assertThat(listing).as("the runtime class path written at package").isRegularFile();
        List<Path> path = new ArrayList<>(List.of(builtJar()));
        for (String entry : Files.readString(listing, StandardCharsets.UTF_8).trim().split(java.io.File.pathSeparator)) {
            path.add(Path.of(entry));
        }
        return path.toArray(Path[]::new);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property %s, set by lock-core's pom", name).isNotBlank();
        return value;
    }

    @Test
    void theJarIsTheModuleDevPadlockExportingOnlyTheApiAndTheSpi() {
        Set<ModuleReference> found = ModuleFinder.of(builtJar()).findAll();
        assertThat(found).hasSize(1);
        ModuleDescriptor module = found.iterator().next().descriptor();

        assertThat(module.name()).isEqualTo(MODULE);
        assertThat(module.isAutomatic()).as("a module-info, not an automatic module").isFalse();
        assertThat(module.isOpen()).isFalse();
        assertThat(module.opens()).isEmpty();
        assertThat(module.exports()).allSatisfy(export -> assertThat(export.isQualified()).isFalse());
        assertThat(module.exports()).extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.padlock", "dev.padlock.spi");
        assertThat(module.packages()).contains("dev.padlock.internal", "dev.padlock.internal.script");
        Set<String> outside = module.packages().stream()
                .filter(p -> !p.equals("dev.padlock") && !p.startsWith("dev.padlock."))
                .collect(Collectors.toSet());
        assertThat(outside).as("packages outside dev.padlock").isEmpty();
    }

    @Test
    void onTheModulePathItResolvesRunsAndHidesTheEngine() throws Exception {
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(ModuleFinder.of(modulePath()), ModuleFinder.of(), Set.of(MODULE));
        assertThat(configuration.findModule("dev.padlock.lua")).as("lock-lua's scripts, resolved with Lettuce")
                .isPresent();
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());
        Module padlock = layer.findModule(MODULE).orElseThrow();
        ClassLoader loader = layer.findLoader(MODULE);

        Set<String> engine = padlock.getPackages().stream().filter(p -> p.startsWith("dev.padlock.internal"))
                .collect(Collectors.toSet());
        assertThat(engine).isNotEmpty().allSatisfy(p -> {
            assertThat(padlock.isExported(p)).as("%s exported", p).isFalse();
            assertThat(padlock.isOpen(p)).as("%s open", p).isFalse();
        });
        Class<?> luaScript = Class.forName("dev.padlock.internal.script.LuaScript", true, loader);
        assertThat(luaScript.getModule()).as("the engine's scripts loaded in the module").isSameAs(padlock);
        assertThatThrownBy(() -> luaScript.getMethod("values").invoke(null))
                .as("a public method of the engine, from outside the module").isInstanceOf(IllegalAccessException.class);
        assertThatThrownBy(() -> MethodHandles.publicLookup().findStatic(luaScript, "values",
                java.lang.invoke.MethodType.methodType(luaScript.arrayType())))
                .isInstanceOf(IllegalAccessException.class);

        Class<?> script = Class.forName("dev.padlock.spi.Script", true, loader);
        Object acquire = script.getMethod("load", Class.class, String.class)
                .invoke(null, script, "/dev/padlock/lua/lock_acquire.lua");
        assertThat(script.getMethod("body").invoke(acquire)).asString().contains("KEYS[1]");

        Class<?> config = Class.forName("dev.padlock.LockConfig", true, loader);
        assertThat(config.getModule()).isSameAs(padlock);
        Object builder = config.getMethod("builder").invoke(null);
        call(builder, "redisUri", String.class, "redis://127.0.0.1:" + closedPort());
        call(builder, "startWithoutRedis", boolean.class, true);
        Object built = builder.getClass().getMethod("build").invoke(builder);
        Class<?> clientType = Class.forName("dev.padlock.LockClient", true, loader);
        // as in an application on the module path, whose context loader defines its modules: Lettuce
        // loads its event classes through it, and this JVM's class path holds other copies of them
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try (AutoCloseable client = (AutoCloseable) clientType.getMethod("create", config).invoke(null, built)) {
            Method getLock = clientType.getMethod("getLock", String.class);
            Object lock = getLock.invoke(client, "module-path");
            Method tryLock = getLock.getReturnType().getMethod("tryLock");
            assertThatThrownBy(() -> tryLock.invoke(lock)).isInstanceOf(InvocationTargetException.class)
                    .cause().as("a lock of a client that has no Redis yet")
                    .extracting(failure -> failure.getClass().getName())
                    .isEqualTo("dev.padlock.RedisUnavailableException");
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    private static void call(Object builder, String method, Class<?> type, Object argument) throws Exception {
        builder.getClass().getMethod(method, type).invoke(builder, argument);
    }

    /** A loopback port nobody listens on. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
