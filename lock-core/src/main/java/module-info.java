/**
 * Padlock: distributed locks on Redis. The module exports the API, {@link dev.padlock}, and the
 * service provider interface of Padlock's own integrations, {@link dev.padlock.spi}; the engine,
 * {@code dev.padlock.internal} and its packages, is not exported.
 *
 * <p>The Lua scripts come from the {@code lock-lua} jar, the automatic module
 * {@code dev.padlock.lua}: put it on the module path beside this one (build tools do, as it is a
 * dependency). It holds no classes, only scripts, so nothing here requires it: it is resolved
 * with Lettuce, as resolving one automatic module resolves every automatic module on the path.
 * {@code dev.padlock.spi.Script} finds the scripts through the class loader, as a named module's
 * own {@code Class.getResourceAsStream} sees only that module's resources.
 */
// Lettuce and Reactor name their automatic modules in their manifests (Automatic-Module-Name), so
// the names are stable; the lint would only repeat that they have no module-info.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.padlock {
    exports dev.padlock;
    exports dev.padlock.spi;

    // RedisAccess (the SPI) takes and returns Lettuce's types; OutageLog takes an SLF4J Logger
    requires transitive lettuce.core;
    requires transitive org.slf4j;
    // @NullMarked and @Nullable, read by tools at compile time only
    requires static transitive org.jspecify;

    requires com.github.benmanes.caffeine;
    requires io.netty.buffer;
    requires io.netty.common;
    requires reactor.core;
    // Lettuce, an automatic module, declares no requires, and Netty 4.2's jars are explicit
    // modules, resolved only when a module requires them: so this module requires the Netty
    // modules lock-core's pom brings for Lettuce (without them, ClientOptions fails to load)
    requires io.netty.handler;
    requires io.netty.resolver.dns;
    requires io.netty.transport;
}
